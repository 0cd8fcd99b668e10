#include "ops/softmax.h"

namespace twin {

Mat log_softmax_rows(const Mat& x) {
  Mat y = x.colwise() - x.rowwise().maxCoeff();
  const auto lse = y.array().exp().rowwise().sum().log().matrix();
  y.colwise() -= lse.col(0);
  return y;
}

Mat softmax_rows(const Mat& x) {
  Mat y = (x.colwise() - x.rowwise().maxCoeff()).array().exp().matrix();
  y.array().colwise() /= y.array().rowwise().sum();
  return y;
}

namespace {
// dx += y ⊙ (dy - Σ_j dy_j y_j)   (softmax Jacobian-vector product, row-wise)
void softmax_backward(const Mat& y, const Mat& dy, Graph& g, NodeId x) {
  const auto dot = (dy.array() * y.array()).rowwise().sum();
  g.accumulate(x, y.array() * (dy.array().colwise() - dot));
}
}  // namespace

Var softmax_rows(Var x) {
  return x.g->record("softmax_rows", softmax_rows(x.val()), {x}, [x](Graph& g, NodeId self) {
    softmax_backward(g.value(self), g.grad(self), g, x.id);
  });
}

// y = x - logsumexp(x)     dx += dy - softmax(x) Σ_j dy_j
Var log_softmax_rows(Var x) {
  return x.g->record("log_softmax_rows", log_softmax_rows(x.val()), {x}, [x](Graph& g, NodeId self) {
    const Mat& dy = g.grad(self);
    const auto sum = dy.rowwise().sum();
    g.accumulate(x.id, dy.array() - g.value(self).array().exp().colwise() * sum.array().col(0));
  });
}

// y_j = m_j e^{x_j} / Σ_k m_k e^{x_k}    same backward as softmax (masked entries have y = 0)
Var masked_softmax_rows(Var x, const Mat& mask) {
  TW_CHECK(mask.rows() == x.rows() && mask.cols() == x.cols(), "masked_softmax_rows: mask ", shape_str(mask),
           " for ", shape_str(x));
  const Mat& v = x.val();
  Mat y = Mat::Zero(v.rows(), v.cols());
  for (Index r = 0; r < v.rows(); ++r) {
    Real mx = -std::numeric_limits<Real>::infinity();
    for (Index c = 0; c < v.cols(); ++c)
      if (mask(r, c) != 0) mx = std::max(mx, v(r, c));
    if (mx == -std::numeric_limits<Real>::infinity()) continue;  // fully masked row
    Real z = 0;
    for (Index c = 0; c < v.cols(); ++c)
      if (mask(r, c) != 0) z += (y(r, c) = std::exp(v(r, c) - mx));
    y.row(r) /= z;
  }
  return x.g->record("masked_softmax_rows", std::move(y), {x}, [x](Graph& g, NodeId self) {
    softmax_backward(g.value(self), g.grad(self), g, x.id);
  });
}

}  // namespace twin
