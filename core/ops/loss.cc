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

// Loss per row, one pass per row: max, then exp and sum. log p_v = (x_v - max) - log z with
// z = Σ exp(x - max), so Σ_v log p_v = Σ_v (x_v - max) - V log z. When training, the unnormalised
// exp(x - max) is kept in `e` and 1/z in `inv_z` for backward: normalising here would be one more pass over
// N x V floats that backward's own pass absorbs for free. In inference `e` is null and nothing N x V is
// written at all (perplexity needs only log z). Rows are independent, so the parallel loop gives the same
// numbers for any thread count.
void ce_forward(const Mat& logits, const Ids& target, Real eps, Mat& loss, Mat* e, Mat& inv_z) {
  const Index N = logits.rows(), V = logits.cols();
  loss.resize(N, 1);
  inv_z.resize(N, 1);
  TW_DCHECK(!e || (e->rows() == N && e->cols() == V), "ce_forward: exp buffer");
#pragma omp parallel for schedule(static) if (N * V >= (1 << 16))
  for (Index n = 0; n < N; ++n) {
    const auto x = logits.row(n);
    const Real mx = x.maxCoeff();
    Real z;
    if (e) {
      auto p = e->row(n);
      p = (x.array() - mx).exp().matrix();
      z = p.sum();
    } else {
      z = (x.array() - mx).exp().sum();
    }
    inv_z(n, 0) = Real(1) / z;
    // Shift by the max before subtracting log z: x_t - lse directly loses digits when |x| is large.
    const Real log_z = std::log(z);
    Real l = -(Real(1) - eps) * ((x(target[static_cast<size_t>(n)]) - mx) - log_z);
    if (eps != 0) l -= eps / static_cast<Real>(V) * ((x.array() - mx).sum() - static_cast<Real>(V) * log_z);
    loss(n, 0) = l;
  }
}

// Turns the saved exp(x - max) into dlogits in place and adds them to the logits' gradient (adopting the
// buffer when that gradient is untouched): dlogits[n] = w_n (e_n / z_n - (1-ε) onehot(y_n) - ε/V).
void ce_backward(Graph& g, NodeId exp_id, const Mat& inv_z, const Ids& target, Real eps, const Mat& w,
                 NodeId logits) {
  Mat d = g.release(exp_id);
  const Index N = d.rows(), V = d.cols();
  const Real u = eps / static_cast<Real>(V);
#pragma omp parallel for schedule(static) if (N * V >= (1 << 16))
  for (Index n = 0; n < N; ++n) {
    const Real wn = w(n, 0);
    if (wn == 0) {
      d.row(n).setZero();
      continue;
    }
    d.row(n).array() = (wn * inv_z(n, 0)) * d.row(n).array() - wn * u;
    d(n, target[static_cast<size_t>(n)]) -= wn * (Real(1) - eps);
  }
  g.add_grad(logits, std::move(d));
}

// exp(x - max) is kept (stashed in the graph's pool) for backward only when training and the logits need a
// gradient; otherwise the forward writes no N x V buffer.
NodeId ce_probs(Graph& g, Var logits, const Ids& target, Real eps, Mat& loss, Mat& inv_z) {
  if (g.training() && g.needs_grad(logits.id)) {
    Mat e = g.take(logits.rows(), logits.cols());
    ce_forward(logits.val(), target, eps, loss, &e, inv_z);
    return g.stash(std::move(e));
  }
  ce_forward(logits.val(), target, eps, loss, nullptr, inv_z);
  return -1;
}
}  // namespace

Var cross_entropy_rows(Var logits, const Ids& target, Real eps) {
  check_targets("cross_entropy_rows", logits, target);
  Graph& g = *logits.g;
  Mat loss = g.take(logits.rows(), 1);
  Mat inv_z;
  const NodeId probs = ce_probs(g, logits, target, eps, loss, inv_z);
  return g.record("cross_entropy_rows", std::move(loss), {logits},
                  [logits, target, eps, probs, inv_z = std::move(inv_z)](Graph& g, NodeId self) {
    ce_backward(g, probs, inv_z, target, eps, g.grad(self), logits.id);
  });
}

Var cross_entropy(Var logits, const Ids& target, const Mat& mask, Real eps) {
  check_targets("cross_entropy", logits, target);
  TW_CHECK(mask.size() == 0 || (mask.rows() == logits.rows() && mask.cols() == 1), "cross_entropy: mask ",
           shape_str(mask), " for logits ", shape_str(logits));
  Graph& g = *logits.g;
  Mat loss = g.take(logits.rows(), 1);
  Mat inv_z;
  const NodeId probs = ce_probs(g, logits, target, eps, loss, inv_z);
  Mat w = mask.size() ? mask : Mat::Ones(logits.rows(), 1);
  Mat total(1, 1);
  total(0, 0) = loss.col(0).dot(w.col(0));
  g.give(std::move(loss));
  return g.record("cross_entropy", std::move(total), {logits},
                  [logits, target, eps, probs, w, inv_z = std::move(inv_z)](Graph& g, NodeId self) {
    const Mat scaled = w * g.grad(self)(0, 0);
    ce_backward(g, probs, inv_z, target, eps, scaled, logits.id);
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
