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
  TW_DCHECK(probs.rows() == N && probs.cols() == V, "ce_forward: probs buffer");
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

// Turns the saved probabilities into dlogits in place and adds them to the logits' gradient (adopting the
// buffer when that gradient is untouched): dlogits[n] = w_n (p_n - (1-ε) onehot(y_n) - ε/V).
void ce_backward(Graph& g, NodeId probs_id, const Ids& target, Real eps, const Mat& w, NodeId logits) {
  Mat d = g.release(probs_id);
  const Index N = d.rows(), V = d.cols();
  const Real u = eps / static_cast<Real>(V);
#pragma omp parallel for schedule(static) if (N * V >= (1 << 16))
  for (Index n = 0; n < N; ++n) {
    const Real wn = w(n, 0);
    if (wn == 0) {
      d.row(n).setZero();
      continue;
    }
    d.row(n).array() = wn * (d.row(n).array() - u);
    d(n, target[static_cast<size_t>(n)]) -= wn * (Real(1) - eps);
  }
  g.add_grad(logits, std::move(d));
}

// The probabilities are kept for backward only when training; in inference their buffer goes straight back.
NodeId ce_probs(Graph& g, Var logits, const Ids& target, Real eps, Mat& loss) {
  Mat probs = g.take(logits.rows(), logits.cols());
  ce_forward(logits.val(), target, eps, loss, probs);
  if (g.training() && g.needs_grad(logits.id)) return g.stash(std::move(probs));
  g.give(std::move(probs));
  return -1;
}
}  // namespace

Var cross_entropy_rows(Var logits, const Ids& target, Real eps) {
  check_targets("cross_entropy_rows", logits, target);
  Graph& g = *logits.g;
  Mat loss = g.take(logits.rows(), 1);
  const NodeId probs = ce_probs(g, logits, target, eps, loss);
  return g.record("cross_entropy_rows", std::move(loss), {logits}, [logits, target, eps, probs](Graph& g, NodeId self) {
    ce_backward(g, probs, target, eps, g.grad(self), logits.id);
  });
}

Var cross_entropy(Var logits, const Ids& target, const Mat& mask, Real eps) {
  check_targets("cross_entropy", logits, target);
  TW_CHECK(mask.size() == 0 || (mask.rows() == logits.rows() && mask.cols() == 1), "cross_entropy: mask ",
           shape_str(mask), " for logits ", shape_str(logits));
  Graph& g = *logits.g;
  Mat loss = g.take(logits.rows(), 1);
  const NodeId probs = ce_probs(g, logits, target, eps, loss);
  Mat w = mask.size() ? mask : Mat::Ones(logits.rows(), 1);
  Mat total(1, 1);
  total(0, 0) = loss.col(0).dot(w.col(0));
  g.give(std::move(loss));
  return g.record("cross_entropy", std::move(total), {logits}, [logits, target, eps, probs, w](Graph& g, NodeId self) {
    const Mat scaled = w * g.grad(self)(0, 0);
    ce_backward(g, probs, target, eps, scaled, logits.id);
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
