#include "base/gemm_blis.h"

#ifdef TW_HAVE_BLIS
#include <blis.h>
#endif

#include "base/check.h"

namespace twin {

#ifdef TW_HAVE_BLIS
bool blis_available() { return true; }
void blis_set_num_threads(int n) { bli_thread_set_num_threads(n); }

void gemm_blis(const Mat& a, bool ta, const Mat& b, bool tb, Mat& c, Real alpha, Real beta) {
  // BLIS's typed API takes both strides, so row-major storage is rs = leading dimension, cs = 1, and
  // op(A) is A with its transpose flag (m, n, k are the dimensions of op(A) op(B)).
  const dim_t m = c.rows(), n = c.cols(), k = ta ? a.rows() : a.cols();
  const trans_t tra = ta ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE, trb = tb ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE;
  Real al = alpha, be = beta;
#ifdef TW_REAL_DOUBLE
  bli_dgemm(tra, trb, m, n, k, &al, const_cast<Real*>(a.data()), a.cols(), 1, const_cast<Real*>(b.data()), b.cols(),
            1, &be, c.data(), c.cols(), 1);
#else
  bli_sgemm(tra, trb, m, n, k, &al, const_cast<Real*>(a.data()), a.cols(), 1, const_cast<Real*>(b.data()), b.cols(),
            1, &be, c.data(), c.cols(), 1);
#endif
}
#else
bool blis_available() { return false; }
void blis_set_num_threads(int) {}
void gemm_blis(const Mat&, bool, const Mat&, bool, Mat&, Real, Real) {
  TW_FAIL("gemm_blis: this build has no BLIS (install libblis-openmp-dev and reconfigure)");
}
#endif

}  // namespace twin
