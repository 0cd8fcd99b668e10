#include "graph/init.h"

#include <Eigen/QR>
#include <cmath>

#include "base/check.h"

namespace twin::init {

Init uniform(Real a) {
  return [a](Mat& m, Rng& r) { r.fill_uniform(m, -a, a); };
}

Init normal(Real stddev) {
  return [stddev](Mat& m, Rng& r) { r.fill_normal(m, 0, stddev); };
}

Init glorot_uniform() {
  return [](Mat& m, Rng& r) {
    const Real s = std::sqrt(Real(6) / static_cast<Real>(m.rows() + m.cols()));
    r.fill_uniform(m, -s, s);
  };
}

Init orthogonal(Real gain) {
  return [gain](Mat& m, Rng& r) {
    // Fill square blocks of size min(rows, cols) so a [H, k*H] recurrent matrix gets k orthogonal blocks.
    const Index n = std::min(m.rows(), m.cols());
    for (Index r0 = 0; r0 < m.rows(); r0 += n) {
      for (Index c0 = 0; c0 < m.cols(); c0 += n) {
        const Index br = std::min(n, m.rows() - r0), bc = std::min(n, m.cols() - c0);
        Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic> a(n, n);
        for (Index i = 0; i < a.size(); ++i) a.data()[i] = r.normal(0, 1);
        Eigen::HouseholderQR<decltype(a)> qr(a);
        Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic> q = qr.householderQ();
        // Sign fix so the distribution is uniform over orthogonal matrices.
        for (Index j = 0; j < n; ++j)
          if (qr.matrixQR()(j, j) < 0) q.col(j) *= -1;
        m.block(r0, c0, br, bc) = (gain * q.block(0, 0, br, bc)).cast<Real>();
      }
    }
  };
}

Init constant(Real c) {
  return [c](Mat& m, Rng&) { m.setConstant(c); };
}

Init identity() {
  return [](Mat& m, Rng&) {
    TW_CHECK(m.rows() == m.cols(), "init::identity needs a square matrix, got ", shape_str(m));
    m.setIdentity();
  };
}

}  // namespace twin::init
