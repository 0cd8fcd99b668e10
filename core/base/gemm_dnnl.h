// Matrix products through oneDNN (optional: TW_HAVE_DNNL, Debian's libdnnl-dev 2.6), float builds only (the
// double build of the gradient checks has no oneDNN route: its matmul is f32). Kept apart from gemm.cc like
// gemm_blis, so that dnnl.hpp is compiled only where it is used (here and ops/dnnl_rnn.cc, base/dnnl_engine.h).
#pragma once
#include <cstddef>
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

}  // namespace twin
