// Matrix products of plain matrices: C = beta C + alpha op(A) op(B), routed by shape to oneDNN, OpenBLAS, BLIS
// or Eigen (DESIGN §8, reference/torch_speed.md), with a flop counter and the profiler's per-product timing. The
// bottom of the engine: the tape (graph/), the ops and beam search call it; it knows no op.
#pragma once
#include <cstdint>
#include <string>

#include "base/real.h"

namespace twin {

// C = beta C + alpha op(A) op(B), routed to oneDNN, BLAS, BLIS or Eigen by shape. C must be sized already.
void gemm(const Mat& a, bool trans_a, const Mat& b, bool trans_b, Mat& c, Real alpha = 1, Real beta = 0);
// Routing, chosen by measurement (build/bin/gemm_bench --threads 1 and 2, results/gemm_bench.md; OpenBLAS's
// OpenMP build, BLIS's OpenMP build). Thin products (fewer than kThinRows rows: the per-step recurrent
// products, rows = batch, and beam search's) go to BLIS when the build has it and they have at least
// kBlisMinWork multiply-adds: on 2 threads [20x650]x[650x2600] runs at 118 GFLOP/s there against 50-58 in
// OpenBLAS or Eigen, [20x200]x[200x800] at 111 against 46-68; on one thread 63 against 51 and 85 against 61.
// Otherwise, on one thread OpenBLAS takes everything from kBlasMinWorkOneThread multiply-adds up; on two,
// products of at least kBlasMinWork multiply-adds with at least kThinRows rows go to OpenBLAS (softmax and
// projections 125-170 vs Eigen's 80-115), and the rest run in Eigen's serial kernel, split by output columns
// over the threads when large enough ("e-split"). BLIS is not used for the large products: it is not
// consistently faster there (results/gemm_bench.md), and one library per shape class keeps results stable.
//
// The measurements assume that each library runs kernels built for this CPU, which a machine can deny: BLIS 0.9
// falls back to its reference C kernels ("generic") on a CPU it does not know (an AVX-512 EPYC of 2026-11-28:
// at most 29 GFLOP/s on one thread, 18-26 on the LM's recurrent shapes against 77-107 in Eigen), and OpenBLAS's
// kernel can be forced narrower than the CPU (OPENBLAS_CORETYPE=Haswell on that machine, set by its image
// because older OpenBLAS builds go wrong on it: the LM's large products at 89-100 GFLOP/s against 107-129 in
// Eigen's AVX-512 build, 140-194 against 213-259 for Eigen's column split on two threads). GemmBackends says
// which of the two can be trusted; gemm_route
// sends to Eigen what would have gone to an untrusted library (results/speed/routing/README.md).
//
// oneDNN (issue 56; core/base/gemm_dnnl.h, its dnnl_sgemm, and its matmul primitive for the long A B^T form,
// dnnl_matmul_takes), when built in and running AVX2 or AVX-512 kernels, takes every product of at least
// kDnnlMinWork multiply-adds, thin or large, on any thread count; the smaller ones keep the rules above. MEASURED ON A LOADED MACHINE (the 2-core AVX-512 Xeon of 2026-12-02, two training
// runs on its cores; to be redone quiet): gemm_bench --threads 1,2 --reps 3 --rounds 3, the libraries
// interleaved A B C ... three times per product and each one's median kept, two processes. One thread, oneDNN
// against the best of Eigen (serial, split), OpenBLAS and BLIS on the same product: from 2^18 multiply-adds,
// thin products (fewer than 64 rows) median 1.19x (1.01-1.43, 28 cases), the others 1.21x (0.87-1.79, 62
// cases): the small LSTM's step [20x200]x[200x800] 118-125 GFLOP/s against Eigen's 88-90 and BLIS's 59, the
// medium LSTM's [20x650]x[650x2600] 68-75 against 67-70 and 53-59, the medium softmax [700x650]x[650x10000]
// 28-102 against 22-76, a beam-10 step [10x512]x[512x1024] 64-99 against 49-72. Below 2^18 oneDNN's fixed cost
// per call loses: median 0.52x (0.29-0.97) on thin products (20x64x64: 66-112 against Eigen's 76-116; 8x16x16:
// 5-8 against 16-28). Two threads: the load stalled two-thread runs of every library now and then (down to
// 0.1 GFLOP/s), so those figures rank nothing; where no library stalled oneDNN led the thin products as on one
// thread (the small LSTM's 195 GFLOP/s against the Eigen split's 149 and BLIS's 94). OpenBLAS ran at 7-33
// GFLOP/s throughout on that machine.
enum class GemmRoute { kEigen, kBlas, kBlis, kDnnl };
struct GemmBackends {
  bool blis = false;   // BLIS is built in and runs kernels tuned for this CPU (not its "generic" configuration)
  bool blas = true;    // OpenBLAS's kernel is not narrower than Eigen's vectors in this build
  bool dnnl = false;   // oneDNN is built in (float builds) and runs its AVX2 or AVX-512 kernels here
};
// Probed once: BLIS's active configuration (bli_arch_query_id), OpenBLAS's core (openblas_get_corename)
// against Eigen's vectorisation (AVX-512 or not) and oneDNN's instruction set (dnnl::get_effective_cpu_isa).
// Deterministic for a machine and environment.
GemmBackends detected_gemm_backends();
// What gemm() routes by: the detected backends unless a test or benchmark set others.
GemmBackends gemm_backends();
void set_gemm_backends(const GemmBackends& b);
// TWIN_GEMM_BACKENDS's value (nullptr: unset): unset or "detect" gives the probe, else the libraries to use,
// comma-separated, from "blas", "blis" and "dnnl" (those the build has), or "eigen" alone for none of them: to
// compare routings on one machine with one binary. Anything else is an error naming the variable.
GemmBackends parse_gemm_backends(const char* value);
// One line for --version and the speed reports: the libraries, their kernels and which products each takes,
// and why one is unused (the probe's reason, or "disabled by TWIN_GEMM_BACKENDS" when the variable chose).
std::string gemm_backends_text();
std::string gemm_backends_text(const GemmBackends& b, bool from_variable);
inline constexpr double kBlasMinWork = 1 << 22;
inline constexpr double kBlasMinWorkOneThread = 1 << 18;
inline constexpr double kBlisMinWork = 1 << 17;
inline constexpr Index kThinRows = 64;
inline constexpr double kDnnlMinWork = 1 << 18;
inline constexpr const char* kDnnlTakes = "(every product from 2^18 multiply-adds)";
// Eigen products of at least this many multiply-adds are split by output columns over the threads.
inline constexpr double kEigenSplitMinWork = 1 << 20;
GemmRoute gemm_route(Index m, Index n, Index k);   // with gemm_backends() and omp_get_max_threads()
GemmRoute gemm_route(Index m, Index n, Index k, const GemmBackends& b, int threads);
const char* gemm_route_name(GemmRoute r);
// gemm()'s Eigen path on its own (for gemm_bench): serial Eigen, split by output columns over the threads
// when the product has at least kEigenSplitMinWork multiply-adds and a depth k >= 64 (a shallow product
// such as a per-step weight gradient [H,20]x[20,4H] ran slower split: 28 vs 45 GFLOP/s).
void gemm_eigen(const Mat& a, bool trans_a, const Mat& b, bool trans_b, Mat& c, Real alpha = 1, Real beta = 0);

// op(B) that many products of one tape read (a recurrent weight U: 35 steps of dh_{t-1} = dG_t U^T).
// gemm_reused(a, b, c) computes what gemm(a, false, b.b(), b.trans(), c) does; from the second product since
// new_tape() on, when the product is thin (fewer than kThinRows rows) and would go to oneDNN, it runs on a copy of
// B packed once (DnnlPackedB, gemm_dnnl.h: 1.3-2x on these shapes) instead of B as stored. The first product never
// packs, so a B read once costs no reorder. B must stay alive, and unchanged from one new_tape() to the next
// (the graph calls it in clear() and at the end of backward(): an optimizer step changes B in between).
class DnnlPackedB;
class ReusedOperand {
 public:
  ReusedOperand(const Mat& b, bool trans) : b_(&b), trans_(trans) {}
  ~ReusedOperand();
  ReusedOperand(const ReusedOperand&) = delete;
  ReusedOperand& operator=(const ReusedOperand&) = delete;
  const Mat& b() const { return *b_; }
  bool trans() const { return trans_; }
  bool packed() const { return packed_ != nullptr; }   // a packed copy exists (the products since new_tape() use it)
  void new_tape();   // B may have changed: count uses from zero, pack again when packing

 private:
  friend void gemm_reused(const Mat& a, ReusedOperand& b, Mat& c, Real alpha, Real beta);
  const Mat* b_;
  bool trans_;
  long uses_ = 0;
  DnnlPackedB* packed_ = nullptr;   // owned (a raw pointer: gemm.h does not see DnnlPackedB)
};
void gemm_reused(const Mat& a, ReusedOperand& b, Mat& c, Real alpha = 1, Real beta = 0);

// Multiply-add flops (2·m·n·k) of every gemm() call since the last reset, for the speed task's GFLOP/s
// (torch_speed.md counts GEMM flops only). A relaxed atomic add per call: costs nothing beside a product
// and never changes a result.
std::uint64_t gemm_flops();
void reset_gemm_flops();

}  // namespace twin
