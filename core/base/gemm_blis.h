// Thin matrix products through BLIS's native API (optional: TW_HAVE_BLIS, Debian's libblis-openmp-dev).
// Kept apart from linalg.cc so that blis.h and OpenBLAS's cblas.h never meet in one translation unit.
#pragma once
#include "base/real.h"

namespace twin {

bool blis_available();
void blis_set_num_threads(int n);
// C = beta C + alpha op(A) op(B) on row-major matrices; C must be sized. Only valid when blis_available().
void gemm_blis(const Mat& a, bool trans_a, const Mat& b, bool trans_b, Mat& c, Real alpha, Real beta);

}  // namespace twin
