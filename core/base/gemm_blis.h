// Thin matrix products through BLIS's native API (optional: TW_HAVE_BLIS, Debian's libblis-openmp-dev).
// Kept apart from linalg.cc so that blis.h and OpenBLAS's cblas.h never meet in one translation unit.
#pragma once
#include <cstddef>
#include <string>

#include "base/real.h"

namespace twin {

bool blis_available();
// BLIS's active configuration ("zen3", "skx", "haswell", ... or "generic", its reference C kernels), "" without BLIS.
std::string blis_arch();
void blis_set_num_threads(int n);
// C = beta C + alpha op(A) op(B) on row-major matrices; C must be sized. Only valid when blis_available().
void gemm_blis(const Mat& a, bool trans_a, const Mat& b, bool trans_b, Mat& c, Real alpha, Real beta);

// The same on raw row-major storage: op(A) is m x k, op(B) k x n, C m x n; lda, ldb, ldc are the row strides
// of A, B and C as stored (A is m x k, or k x m when trans_a). Exposed for the guard-page test.
void gemm_blis_rows(bool trans_a, bool trans_b, Index m, Index n, Index k, Real alpha, const Real* a, Index lda,
                    const Real* b, Index ldb, Real beta, Real* c, Index ldc);

// Debian's BLIS 0.9 small-matrix ("sup") kernels read a few values past the end of an operand in edge cases
// (measured with guard pages on this machine: up to 512 floats past A when B is transposed and k % 8 != 0,
// flame/blis#821, fixed upstream in 1.0; 1-2 floats past C, and past B when n = 1). The values are discarded, but
// an operand that ends just before an unmapped page makes the read a SIGSEGV (seen: a NER GRU run, dA = dC B^T,
// [10,300] x [100,300]^T). So gemm_blis_rows hands BLIS a copy of any operand with fewer than
// blis_read_margin(...) readable bytes before the next 4 KiB boundary: rare (a small margin) except for A in the
// transposed-B case, which is the small operand of a thin product (m x k) and cheap to copy.
std::size_t blis_read_margin_bytes(bool trans_a, bool trans_b, Index ld, char operand);

}  // namespace twin
