#include "ops/layer_norm.h"

namespace twin {

// x̂ = (x - μ) / σ, σ = sqrt(var + eps), y = gain ⊙ x̂ + bias
// dx = (1/σ) (ĝ - mean(ĝ) - x̂ mean(ĝ ⊙ x̂)) with ĝ = dy ⊙ gain;  dgain += Σ_n dy ⊙ x̂;  dbias += Σ_n dy
Var layer_norm(Var x, Var gain, Var bias, Real eps) {
  const Index N = x.rows(), D = x.cols();
  TW_CHECK(gain.rows() == 1 && gain.cols() == D && bias.rows() == 1 && bias.cols() == D, "layer_norm: x ",
           shape_str(x), " gain ", shape_str(gain), " bias ", shape_str(bias));
  Mat xhat(N, D), inv_sigma(N, 1);
  for (Index n = 0; n < N; ++n) {
    const Real mu = x.val().row(n).mean();
    const Real var = (x.val().row(n).array() - mu).square().mean();
    inv_sigma(n, 0) = Real(1) / std::sqrt(var + eps);
    xhat.row(n) = (x.val().row(n).array() - mu) * inv_sigma(n, 0);
  }
  Mat y = (xhat.array().rowwise() * gain.val().row(0).array()).matrix();
  y.rowwise() += bias.val().row(0);
  return x.g->record("layer_norm", std::move(y), {x, gain, bias},
                     [x, gain, bias, xhat, inv_sigma](Graph& g, NodeId self) {
                       const Mat& dy = g.grad(self);
                       if (g.needs_grad(x.id)) {
                         Mat gh = (dy.array().rowwise() * g.value(gain.id).row(0).array()).matrix();
                         Mat& dx = g.grad(x.id);
                         for (Index n = 0; n < gh.rows(); ++n) {
                           const Real m1 = gh.row(n).mean();
                           const Real m2 = gh.row(n).dot(xhat.row(n)) / static_cast<Real>(gh.cols());
                           dx.row(n).array() +=
                               inv_sigma(n, 0) * (gh.row(n).array() - m1 - xhat.row(n).array() * m2);
                         }
                       }
                       if (g.needs_grad(gain.id)) g.grad(gain.id) += dy.cwiseProduct(xhat).colwise().sum();
                       if (g.needs_grad(bias.id)) g.grad(bias.id) += dy.colwise().sum();
                     });
}

}  // namespace twin
