#include "ops/loss.h"

#include <memory>

#include "ops/softmax.h"

namespace twin {

namespace {
void check_targets(const char* op, Var logits, const Ids& target) {
  TW_CHECK(static_cast<Index>(target.size()) == logits.rows(), op, ": ", target.size(), " targets for logits ",
           shape_str(logits));
  for (size_t n = 0; n < target.size(); ++n)
    TW_CHECK(target[n] >= 0 && target[n] < logits.cols(), op, ": target ", target[n], " at row ", n,
             " outside vocabulary of ", logits.cols());
}

// Loss per row and the softmax (kept for backward), one pass per row: max, exp and sum, normalise.
// log p_v = (x_v - max) - log z with z = Σ exp(x - max), so Σ_v log p_v = Σ_v (x_v - max) - V log z. Rows are
// independent, so the parallel loop gives the same numbers for any thread count.
void ce_forward(const Mat& logits, const Ids& target, Real eps, Mat& loss, Mat& probs) {
  const Index N = logits.rows(), V = logits.cols();
  loss.resize(N, 1);
  probs.resize(N, V);
#pragma omp parallel for schedule(static) if (N * V >= (1 << 16))
  for (Index n = 0; n < N; ++n) {
    const auto x = logits.row(n);
    auto p = probs.row(n);
    const Real mx = x.maxCoeff();
    p = (x.array() - mx).exp().matrix();
    const Real z = p.sum();
    p /= z;
    // Shift by the max before subtracting log z: x_t - lse directly loses digits when |x| is large.
    const Real log_z = std::log(z);
    Real l = -(Real(1) - eps) * ((x(target[static_cast<size_t>(n)]) - mx) - log_z);
    if (eps != 0) l -= eps / static_cast<Real>(V) * ((x.array() - mx).sum() - static_cast<Real>(V) * log_z);
    loss(n, 0) = l;
  }
}

// dlogits[n] += w_n (p_n - (1-ε) onehot(y_n) - ε/V)
void ce_backward(const Mat& probs, const Ids& target, Real eps, const Mat& w, Mat& dx) {
  const Index N = probs.rows(), V = probs.cols();
  const Real u = eps / static_cast<Real>(V);
#pragma omp parallel for schedule(static) if (N * V >= (1 << 16))
  for (Index n = 0; n < N; ++n) {
    const Real wn = w(n, 0);
    if (wn == 0) continue;
    dx.row(n).array() += wn * (probs.row(n).array() - u);
    dx(n, target[static_cast<size_t>(n)]) -= wn * (Real(1) - eps);
  }
}
}  // namespace

Var cross_entropy_rows(Var logits, const Ids& target, Real eps) {
  check_targets("cross_entropy_rows", logits, target);
  Mat loss;
  auto probs = std::make_shared<Mat>();
  ce_forward(logits.val(), target, eps, loss, *probs);
  return logits.g->record("cross_entropy_rows", std::move(loss), {logits},
                          [logits, target, eps, probs](Graph& g, NodeId self) {
                            ce_backward(*probs, target, eps, g.grad(self), g.grad(logits.id));
                          });
}

Var cross_entropy(Var logits, const Ids& target, const Mat& mask, Real eps) {
  check_targets("cross_entropy", logits, target);
  TW_CHECK(mask.size() == 0 || (mask.rows() == logits.rows() && mask.cols() == 1), "cross_entropy: mask ",
           shape_str(mask), " for logits ", shape_str(logits));
  Mat loss;
  auto probs = std::make_shared<Mat>();
  ce_forward(logits.val(), target, eps, loss, *probs);
  Mat w = mask.size() ? mask : Mat::Ones(logits.rows(), 1);
  Mat total(1, 1);
  total(0, 0) = loss.col(0).dot(w.col(0));
  if (!logits.g->training()) probs.reset();  // nothing will read it
  return logits.g->record("cross_entropy", std::move(total), {logits},
                          [logits, target, eps, probs, w](Graph& g, NodeId self) {
                            const Mat scaled = w * g.grad(self)(0, 0);
                            ce_backward(*probs, target, eps, scaled, g.grad(logits.id));
                          });
}

// y[n] = x[n, idx[n]]      dx[n, idx[n]] += dy[n]
Var pick(Var x, const Ids& idx) {
  TW_CHECK(static_cast<Index>(idx.size()) == x.rows(), "pick: ", idx.size(), " indices for ", shape_str(x));
  Mat y(x.rows(), 1);
  for (Index n = 0; n < x.rows(); ++n) {
    const auto j = idx[static_cast<size_t>(n)];
    TW_CHECK(j >= 0 && j < x.cols(), "pick: index ", j, " at row ", n, " outside ", shape_str(x));
    y(n, 0) = x.val()(n, j);
  }
  return x.g->record("pick", std::move(y), {x}, [x, idx](Graph& g, NodeId self) {
    Mat& dx = g.grad(x.id);
    const Mat& dy = g.grad(self);
    for (Index n = 0; n < dx.rows(); ++n) dx(n, idx[static_cast<size_t>(n)]) += dy(n, 0);
  });
}

}  // namespace twin
