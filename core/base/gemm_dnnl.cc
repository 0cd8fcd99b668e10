#include "base/gemm_dnnl.h"

#if defined(TW_HAVE_DNNL) && !defined(TW_REAL_DOUBLE)
#define TW_DNNL_GEMM 1
#include "base/dnnl_engine.h"
#include <omp.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>
#include <unordered_map>
#include <vector>
#endif

#include "base/check.h"

namespace twin {

#ifdef TW_DNNL_GEMM
// Two ways into oneDNN 2.6: the matmul primitive (made once per shape kind and cached, then executed with
// memory objects wrapping our buffers) and dnnl_sgemm (one call, no state). gemm_dnnl, the route, uses
// dnnl_sgemm: measured with gemm_bench --reps 3 --rounds 3 (the libraries interleaved, medians), two processes,
// on the 2-core AVX-512 Xeon of 2026-12-02 LOADED by two training runs (to be redone quiet), dnnl_sgemm /
// matmul over the 15 suite shapes of at least 2^18 multiply-adds, one thread: forward products median 1.16x
// (1.05-2.23), input gradients (B transposed) 1.08x (0.67-1.33), weight gradients (A transposed) 1.23x
// (0.86-4.58); on the thin per-step shapes too (20x200x200 forward 144 vs 126 and 97 vs 82 GFLOP/s, the medium
// LSTM's weight gradient 650x20x2600 110 vs 58). The primitive's fixed cost per call (memory objects, argument
// map, cache lookup) is about 3 us (8x16x16: 1.2 GFLOP/s against dnnl_sgemm's 5), and for several shapes it
// picked slower kernels. Two-thread figures were too disturbed by the load to tell them apart (medians
// 1.00-1.15x). gemm_dnnl_matmul stays for that comparison (gemm_bench's "dnnl-matmul" column) and is tested.
// Quiet, on the 2-core Zen 5 EPYC of 2026-12-05 (results/speed/dnnl_default/gemm_bench.md, --rounds 3), one
// form is the exception: A B^T with a long inner dimension, where dnnl_sgemm falls far behind the primitive.
// One thread: 20x2600x650 (the medium LSTM's recurrent input gradient) 74 GFLOP/s against 148, the NMT GRU's
// 80x3000x1000 107 against 182, 80x1024x512 160 against 199, 700x2600x650 166 against 185, and the softmax's
// 700x10000x{200,650} 167-178 against 171-181; two threads 142 / 237, 204 / 350, 141 / 318, 316 / 357 and
// 320-325 / 321-328. Below k = 1024 the two are level (20x600x200 to 20x800x200: 149-152 against 148-149, one
// thread) and the beam-10 step 10x1024x512 runs faster in dnnl_sgemm on two threads (193 against 123): hence
// dnnl_matmul_takes (gemm_dnnl.h), k >= 1024 and at least 16 rows; its effect on whole training steps is
// measured in results/speed/dnnl_dx/.
dnnl::engine& dnnl_cpu_engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

dnnl::stream& dnnl_thread_stream() {
  thread_local dnnl::stream s(dnnl_cpu_engine());
  return s;
}

namespace {
using dnnl::memory;
using Dims = memory::dims;

// A primitive is specialised for its shape, transposes (as strides), whether it scales by alpha (a runtime
// output scale, so any alpha shares it) and whether it adds C (a sum post-op: beta C is formed first when
// beta != 1, so any beta != 0 shares it), and for the thread count it will run with (omp_get_max_threads(),
// 1 inside a parallel region, as oneDNN counts it): a primitive may plan its work split when it is made, so
// one made for two threads is never run on one, nor the other way round.
using Key = std::tuple<Index, Index, Index, bool, bool, bool, bool, int>;
struct Cached {
  dnnl::matmul prim;
  memory::desc a, b, c, scratch;
};

std::mutex g_cache_mutex;
std::map<Key, Cached>& cache() {
  static std::map<Key, Cached> m;
  return m;
}

int dnnl_threads() { return omp_in_parallel() ? 1 : omp_get_max_threads(); }

// Row-major storage: A is m x k with row stride lda, or k x m when transposed; op(A) is then described to
// oneDNN as the m x k matrix with strides {1, lda}. The same for B; C is m x n, strides {ldc, 1}.
memory::desc operand(Index rows, Index cols, bool trans, Index ld) {
  return memory::desc(Dims{rows, cols}, memory::data_type::f32, trans ? Dims{1, ld} : Dims{ld, 1});
}

// A product primitive's attributes: our own scratchpad (run_product), a runtime output scale when alpha != 1
// (so any alpha shares the primitive), and a sum post-op when C is accumulated into.
dnnl::primitive_attr product_attr(bool scaled, bool accumulate) {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (scaled) attr.set_output_scales(0, {DNNL_RUNTIME_F32_VAL});
  if (accumulate) {
    dnnl::post_ops ops;
    ops.append_sum(1.0f);
    attr.set_post_ops(ops);
  }
  return attr;
}

// Runs a product primitive made with product_attr: alpha as its runtime scale, a per-thread scratchpad that
// grows to the largest any primitive asked for.
void run_product(const dnnl::matmul& prim, const memory::desc& scratch_desc, const memory& src,
                 const memory& weights, const memory& dst, Real alpha) {
  dnnl::engine& eng = dnnl_cpu_engine();
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}};
  float scale = alpha;
  if (alpha != 1) args.emplace(DNNL_ARG_ATTR_OUTPUT_SCALES, memory({Dims{1}, memory::data_type::f32, Dims{1}}, eng, &scale));
  thread_local std::vector<std::uint8_t> scratch;
  if (scratch_desc.get_size() > 0) {
    if (scratch.size() < scratch_desc.get_size()) scratch.resize(scratch_desc.get_size());
    args.emplace(DNNL_ARG_SCRATCHPAD, memory(scratch_desc, eng, scratch.data()));
  }
  prim.execute(dnnl_thread_stream(), args);
}

Cached make(const Key& key) {
  const auto [m, n, k, ta, tb, scaled, accumulate, threads] = key;
  (void)threads;   // oneDNN reads it from OpenMP itself; in the key so that another count gets its own primitive
  Cached e;
  e.a = operand(m, k, ta, ta ? m : k);
  e.b = operand(k, n, tb, tb ? k : n);
  e.c = operand(m, n, false, n);
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(e.a, e.b, e.c), product_attr(scaled, accumulate),
                                        dnnl_cpu_engine());
  e.scratch = pd.scratchpad_desc();
  e.prim = dnnl::matmul(pd);
  return e;
}

const Cached& lookup(const Key& key) {
  const std::lock_guard<std::mutex> lock(g_cache_mutex);
  auto it = cache().find(key);
  if (it == cache().end()) it = cache().emplace(key, make(key)).first;
  return it->second;   // std::map: references stay valid as other shapes are added
}
}  // namespace

bool dnnl_available() { return true; }

std::string dnnl_version() {
  const dnnl_version_t* v = ::dnnl_version();
  return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
}

std::string dnnl_isa() {
  switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::sse41: return "sse41";
    case dnnl::cpu_isa::avx: return "avx";
    case dnnl::cpu_isa::avx2: return "avx2";
    case dnnl::cpu_isa::avx2_vnni: return "avx2_vnni";
    case dnnl::cpu_isa::avx512_mic: return "avx512_mic";
    case dnnl::cpu_isa::avx512_mic_4ops: return "avx512_mic_4ops";
    case dnnl::cpu_isa::avx512_core: return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx: return "avx512_core_amx";
    default: return "isa_" + std::to_string(static_cast<int>(dnnl::get_effective_cpu_isa()));
  }
}

bool dnnl_isa_tuned() {
  // cpu_isa values are bit sets, each containing those of the sets it extends: AVX2 and every AVX-512 core set
  // contain avx2's bits. Xeon Phi's avx512_mic sets do too, but none of those machines will run this.
  const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
  const auto avx2 = static_cast<unsigned>(dnnl::cpu_isa::avx2);
  return (isa & avx2) == avx2;
}

std::size_t dnnl_cached_primitives() {
  const std::lock_guard<std::mutex> lock(g_cache_mutex);
  return cache().size();
}

namespace {
// k = 0: the product is zero (oneDNN refuses an empty reduction, and dnnl_sgemm a leading dimension of 0).
bool empty_product(Index m, Index n, Index k, Mat& c, Real beta) {
  if (m != 0 && n != 0 && k != 0) return false;
  if (m == 0 || n == 0) return true;
  if (beta == 0) c.setZero();
  else c *= beta;
  return true;
}
}  // namespace

void gemm_dnnl_matmul(const Mat& a, bool ta, const Mat& b, bool tb, Mat& c, Real alpha, Real beta) {
  const Index m = c.rows(), n = c.cols(), k = ta ? a.rows() : a.cols();
  if (empty_product(m, n, k, c, beta)) return;
  const bool accumulate = beta != 0;
  if (accumulate && beta != 1) c *= beta;   // then C += alpha op(A) op(B) through the sum post-op
  const Cached& e = lookup(Key{m, n, k, ta, tb, alpha != 1, accumulate, dnnl_threads()});
  dnnl::engine& eng = dnnl_cpu_engine();
  run_product(e.prim, e.scratch, memory(e.a, eng, const_cast<Real*>(a.data())),
              memory(e.b, eng, const_cast<Real*>(b.data())), memory(e.c, eng, c.data()), alpha);
}

void gemm_dnnl(const Mat& a, bool ta, const Mat& b, bool tb, Mat& c, Real alpha, Real beta) {
  const Index m = c.rows(), n = c.cols(), k = ta ? a.rows() : a.cols();
  if (empty_product(m, n, k, c, beta)) return;
  // Row-major like BLAS's CblasRowMajor: the leading dimensions are the stored row lengths.
  const dnnl_status_t st = dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, alpha, a.data(), a.cols(), b.data(),
                                      b.cols(), beta, c.data(), c.cols());
  TW_CHECK(st == dnnl_success, "dnnl_sgemm failed with status ", static_cast<int>(st));
}
namespace {
std::atomic<std::uint64_t> g_packed_reorders{0};
}  // namespace

// One primitive per (m, scaled, accumulate, threads), and one packed copy of B per layout those primitives pick:
// a batch whose row count changes (the last of an epoch, token-based batches) makes a primitive, not a copy
// (the layout depends on k and n only on this machine: one for every m from 1 to 63, k x n 2600x650, 650x650,
// 200x800, 1024x512, on one and two threads; a machine where it differs gets one copy per layout).
struct DnnlPackedB::Impl {
  const Mat* b;
  bool tb;
  Index k, n;
  struct Packed {
    memory::desc desc;
    memory mem;            // owns its buffer (allocated by oneDNN in the picked layout)
    dnnl::reorder pack;    // B as stored -> this layout, made once
    bool fresh = false;    // holds B's current values (mark_stale(): B may have changed)
  };
  struct Entry {
    dnnl::matmul prim;
    memory::desc a, c, scratch;
    std::size_t packed;    // index into `packed`
  };
  std::vector<Packed> packed;
  std::map<std::tuple<Index, bool, bool, int>, Entry> entries;

  // The primitive for this form, with B packed into its layout and fresh.
  Entry& entry(Index m, bool scaled, bool accumulate, int threads) {
    const auto key = std::make_tuple(m, scaled, accumulate, threads);
    auto it = entries.find(key);
    if (it == entries.end()) it = entries.emplace(key, make(m, scaled, accumulate)).first;
    Entry& e = it->second;
    Packed& p = packed[e.packed];
    if (!p.fresh) {
      memory plain(operand(k, n, tb, tb ? k : n), dnnl_cpu_engine(), const_cast<Real*>(b->data()));
      p.pack.execute(dnnl_thread_stream(), plain, p.mem);
      g_packed_reorders.fetch_add(1, std::memory_order_relaxed);
      p.fresh = true;
    }
    return e;
  }

  Entry make(Index m, bool scaled, bool accumulate) {
    dnnl::engine& eng = dnnl_cpu_engine();
    Entry e;
    e.a = operand(m, k, false, k);
    e.c = operand(m, n, false, n);
    const memory::desc any(Dims{k, n}, memory::data_type::f32, memory::format_tag::any);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(e.a, any, e.c), product_attr(scaled, accumulate), eng);
    e.prim = dnnl::matmul(pd);
    e.scratch = pd.scratchpad_desc();
    const memory::desc w = pd.weights_desc();
    e.packed = packed.size();
    for (std::size_t i = 0; i < packed.size(); ++i)
      if (packed[i].desc == w) e.packed = i;
    if (e.packed == packed.size()) {
      Packed p;
      p.desc = w;
      p.mem = memory(w, eng);
      p.pack = dnnl::reorder(dnnl::reorder::primitive_desc(eng, operand(k, n, tb, tb ? k : n), eng, w));
      packed.push_back(std::move(p));
    }
    return e;
  }
};

DnnlPackedB::DnnlPackedB(const Mat& b, bool trans_b)
    : impl_(new Impl{&b, trans_b, trans_b ? b.cols() : b.rows(), trans_b ? b.rows() : b.cols(), {}, {}}) {}
DnnlPackedB::~DnnlPackedB() { delete impl_; }
void DnnlPackedB::mark_stale() {
  for (Impl::Packed& p : impl_->packed) p.fresh = false;
}
std::size_t DnnlPackedB::packed_copies() const { return impl_->packed.size(); }
Index DnnlPackedB::k() const { return impl_->k; }
Index DnnlPackedB::n() const { return impl_->n; }

void DnnlPackedB::gemm(const Mat& a, Mat& c, Real alpha, Real beta) {
  const Index m = a.rows();
  TW_CHECK(a.cols() == impl_->k && c.rows() == m && c.cols() == impl_->n, "DnnlPackedB::gemm: ", shape_str(a), " x ",
           impl_->k, "x", impl_->n, " into ", shape_str(c));
  if (empty_product(m, impl_->n, impl_->k, c, beta)) return;
  const bool accumulate = beta != 0;
  if (accumulate && beta != 1) c *= beta;
  Impl::Entry& e = impl_->entry(m, alpha != 1, accumulate, dnnl_threads());
  dnnl::engine& eng = dnnl_cpu_engine();
  run_product(e.prim, e.scratch, memory(e.a, eng, const_cast<Real*>(a.data())), impl_->packed[e.packed].mem,
              memory(e.c, eng, c.data()), alpha);
}

std::uint64_t dnnl_packed_reorders() { return g_packed_reorders.load(std::memory_order_relaxed); }
#else
bool dnnl_available() { return false; }
std::string dnnl_version() { return ""; }
std::string dnnl_isa() { return ""; }
bool dnnl_isa_tuned() { return false; }
std::size_t dnnl_cached_primitives() { return 0; }
void gemm_dnnl(const Mat&, bool, const Mat&, bool, Mat&, Real, Real) {
  TW_FAIL("gemm_dnnl: this build has no oneDNN (install libdnnl-dev and reconfigure; float builds only)");
}
void gemm_dnnl_matmul(const Mat&, bool, const Mat&, bool, Mat&, Real, Real) {
  TW_FAIL("gemm_dnnl: this build has no oneDNN (install libdnnl-dev and reconfigure; float builds only)");
}
struct DnnlPackedB::Impl {};
DnnlPackedB::DnnlPackedB(const Mat&, bool) : impl_(nullptr) {
  TW_FAIL("DnnlPackedB: this build has no oneDNN (install libdnnl-dev and reconfigure; float builds only)");
}
DnnlPackedB::~DnnlPackedB() = default;
void DnnlPackedB::mark_stale() {}
std::size_t DnnlPackedB::packed_copies() const { return 0; }
Index DnnlPackedB::k() const { return 0; }
Index DnnlPackedB::n() const { return 0; }
void DnnlPackedB::gemm(const Mat&, Mat&, Real, Real) { TW_FAIL("DnnlPackedB: this build has no oneDNN"); }
std::uint64_t dnnl_packed_reorders() { return 0; }
#endif

}  // namespace twin
