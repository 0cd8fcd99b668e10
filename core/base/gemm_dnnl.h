// Matrix products through oneDNN (optional: TW_HAVE_DNNL, Debian's libdnnl-dev 2.6), float builds only (the
// double build of the gradient checks has no oneDNN route: its matmul is f32). Kept apart from gemm.cc like
// gemm_blis, so that dnnl.hpp is compiled only where it is used (here and ops/dnnl_rnn.cc, base/dnnl_engine.h).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/real.h"

namespace twin {

// Built with oneDNN (and Real is float).
bool dnnl_available();
// oneDNN's version ("2.6.3") and the instruction set its kernels run with here (dnnl::get_effective_cpu_isa:
// "avx512_core_bf16", "avx2", ...); "" without oneDNN.
std::string dnnl_version();
std::string dnnl_isa();
// Its kernels are AVX2 or wider (AVX-512): what the routing asks before trusting it (gemm.h, GemmBackends).
bool dnnl_isa_tuned();

// C = beta C + alpha op(A) op(B) on row-major matrices, what gemm()'s oneDNN route runs for every form but
// dnnl_matmul_takes(): through dnnl_sgemm, oneDNN's BLAS-like entry point (row-major, no state); why not the
// matmul primitive for all: gemm_dnnl.cc. C must be
// sized; beta 0 never reads C. Only valid when dnnl_available(). Threads: omp_get_max_threads() of the calling
// thread (one inside a parallel region), as oneDNN's OpenMP runtime counts them.
void gemm_dnnl(const Mat& a, bool trans_a, const Mat& b, bool trans_b, Mat& c, Real alpha, Real beta);
// The same product through oneDNN's matmul primitive (one per shape kind, cached), the alternative that
// gemm_bench measures beside it ("dnnl-matmul").
void gemm_dnnl_matmul(const Mat& a, bool trans_a, const Mat& b, bool trans_b, Mat& c, Real alpha, Real beta);
// Whether gemm()'s oneDNN route runs this product through the matmul primitive rather than dnnl_sgemm: the
// input-gradient form A B^T (B transposed, A not) with a long inner dimension, k >= kDnnlMatmulMinDepth, and
// at least kDnnlMatmulMinRows rows. dnnl_sgemm runs that form slowly (why: gemm_dnnl.cc).
inline constexpr Index kDnnlMatmulMinDepth = 1024;
inline constexpr Index kDnnlMatmulMinRows = 16;
constexpr bool dnnl_matmul_takes(Index m, Index k, bool trans_a, bool trans_b) {
  return !trans_a && trans_b && k >= kDnnlMatmulMinDepth && m >= kDnnlMatmulMinRows;
}
// Primitives in gemm_dnnl_matmul's cache (for the tests).
std::size_t dnnl_cached_primitives();

// op(B) packed once, for many products A op(B) with the same B: the per-step recurrent products of a tape
// (dh_{t-1} = dG_t U^T, 20 rows, 35 steps). A matmul primitive per (m, alpha kind, beta kind, threads) is made
// with its weights in the layout it picks (format "any"); B is reordered into each layout once (one copy per
// layout) and again after mark_stale(), where dnnl_sgemm and the plain-layout primitive read the row-major B
// afresh in every call. Measured on the Zen 5 EPYC, quiet, one sequence of 35 calls with
// the reorder counted (results/speed/lm_peers_profile/packed_u_bench.md): the medium LSTM's 20x2600x650 A B^T
// at 301-318 GFLOP/s on two threads against 228-233 (primitive, plain layout) and 113-129 (dnnl_sgemm); one
// thread 183-192 against 139-145; ATR's 20x650x650 A B^T 293-300 against 158-162 (dnnl_sgemm, its route). The
// forward form A B gains little or loses (ATR's 269-297 against 310-322): only matmul's input gradient uses it.
// Only valid when dnnl_available(); B must stay alive, and unchanged from one mark_stale() to the next.
class DnnlPackedB {
 public:
  DnnlPackedB(const Mat& b, bool trans_b);
  ~DnnlPackedB();
  DnnlPackedB(const DnnlPackedB&) = delete;
  DnnlPackedB& operator=(const DnnlPackedB&) = delete;
  Index k() const;   // op(B) is k x n
  Index n() const;
  // C = beta C + alpha A op(B): A is m x k (not transposed), C m x n and sized.
  void gemm(const Mat& a, Mat& c, Real alpha, Real beta);
  // B's values may have changed (an optimizer step): the next product packs it again, into the same buffers.
  void mark_stale();
  // Packed copies of B held (one per layout the products' primitives picked; for the tests).
  std::size_t packed_copies() const;

 private:
  struct Impl;
  Impl* impl_;
};
// Reorders of B into a packed layout since the process began (for the tests: once per B, rows and form).
std::uint64_t dnnl_packed_reorders();

}  // namespace twin
