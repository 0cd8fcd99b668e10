#include "ops/output_loss.h"

#include <cmath>

#include "ops/linalg.h"

namespace twin {

namespace {

// Bias gradients are summed over fixed blocks of rows, then the blocks in order: the same numbers for any
// thread count (like the rest of the loss, whose rows are independent).
constexpr Index kBiasRows = 64;

struct Forward {
  Mat loss;    // [N,1] per-row loss
  Mat inv_z;   // [N,1] 1 / Σ_v exp(l_v - max)
};

// Row by row. Training, in place: l <- l + b, then l <- exp(l - max) (the row is in cache after its first
// pass, so memory sees the [N, V] logits once). Inference only reads them (the row pass is bound by memory
// traffic: writing l + b back cost 10 % of the LM's inference step).
Forward rows_forward(Mat& logits, const Mat* b, const Ids& target, Real eps, bool keep_exp) {
  const Index N = logits.rows(), V = logits.cols();
  Forward f{Mat(N, 1), Mat(N, 1)};
#pragma omp parallel for schedule(static) if (N * V >= (1 << 16))
  for (Index n = 0; n < N; ++n) {
    auto l = logits.row(n);
    const auto t = static_cast<Index>(target[static_cast<size_t>(n)]);
    Real mx, sum_shifted = 0, target_shifted, z;
    if (keep_exp) {
      if (b) l += b->row(0);
      mx = l.maxCoeff();
      if (eps != 0) sum_shifted = l.sum() - static_cast<Real>(V) * mx;
      target_shifted = l(t) - mx;
      l = (l.array() - mx).exp().matrix();
      z = l.sum();
    } else if (b) {
      const auto lb = l + b->row(0);
      mx = lb.maxCoeff();
      if (eps != 0) sum_shifted = lb.sum() - static_cast<Real>(V) * mx;
      target_shifted = l(t) + (*b)(0, t) - mx;
      z = (lb.array() - mx).exp().sum();
    } else {
      mx = l.maxCoeff();
      if (eps != 0) sum_shifted = l.sum() - static_cast<Real>(V) * mx;
      target_shifted = l(t) - mx;
      z = (l.array() - mx).exp().sum();
    }
    f.inv_z(n, 0) = Real(1) / z;
    const Real log_z = std::log(z);
    Real loss = -(Real(1) - eps) * (target_shifted - log_z);
    if (eps != 0) loss -= eps / static_cast<Real>(V) * (sum_shifted - static_cast<Real>(V) * log_z);
    f.loss(n, 0) = loss;
  }
  return f;
}

// e <- dlogits in place, dlogits[n] = w_n (e_n / z_n - (1-ε) onehot(y_n) - ε/V); db += Σ_n dlogits[n] when
// `db` is given.
void rows_backward(Mat& e, const Mat& inv_z, const Mat& w, const Ids& target, Real eps, Mat* db) {
  const Index N = e.rows(), V = e.cols();
  const Real u = eps / static_cast<Real>(V);
  const Index blocks = (N + kBiasRows - 1) / kBiasRows;
  Mat partial = db ? Mat::Zero(blocks, V) : Mat();
#pragma omp parallel for schedule(static) if (N * V >= (1 << 16))
  for (Index blk = 0; blk < blocks; ++blk) {
    for (Index n = blk * kBiasRows; n < std::min(N, (blk + 1) * kBiasRows); ++n) {
      auto d = e.row(n);
      const Real wn = w(n, 0);
      if (wn == 0) {
        d.setZero();
        continue;
      }
      d.array() = (wn * inv_z(n, 0)) * d.array() - wn * u;
      d(target[static_cast<size_t>(n)]) -= wn * (Real(1) - eps);
      if (db) partial.row(blk) += d;
    }
  }
  if (db) *db += partial.colwise().sum();
}

}  // namespace

Var linear_cross_entropy(Var x, Var w, bool vocab_major, Var b, const Ids& target, const Mat& mask, Real eps) {
  Graph& g = *x.g;
  const Index N = x.rows(), H = vocab_major ? w.cols() : w.rows(), V = vocab_major ? w.rows() : w.cols();
  TW_CHECK(x.cols() == H, "linear_cross_entropy: input ", shape_str(x), " for weights ", shape_str(w),
           vocab_major ? " (vocabulary-major)" : "");
  TW_CHECK(!b.valid() || (b.rows() == 1 && b.cols() == V), "linear_cross_entropy: bias ", shape_str(b),
           " for a vocabulary of ", V);
  TW_CHECK(mask.size() == 0 || (mask.rows() == N && mask.cols() == 1), "linear_cross_entropy: mask ",
           shape_str(mask), " for ", N, " rows");
  TW_CHECK(static_cast<Index>(target.size()) == N, "linear_cross_entropy: ", target.size(), " targets for ", N,
           " rows");
  for (size_t n = 0; n < target.size(); ++n)
    TW_CHECK(target[n] >= 0 && target[n] < V, "linear_cross_entropy: target ", target[n], " at row ", n,
             " outside vocabulary of ", V);

  Mat logits = g.take(N, V);
  const bool keep = g.training() && (g.needs_grad(x.id) || g.needs_grad(w.id) || (b.valid() && g.needs_grad(b.id)));
  gemm(x.val(), false, w.val(), vocab_major, logits);   // beta = 0: C is written, never read
  Forward f = rows_forward(logits, b.valid() ? &b.val() : nullptr, target, eps, keep);
  Mat wts = mask.size() ? mask : Mat::Ones(N, 1);
  Mat total(1, 1);
  total(0, 0) = f.loss.col(0).dot(wts.col(0));
  NodeId exp_id = -1;
  if (keep) exp_id = g.stash(std::move(logits));
  else g.give(std::move(logits));
  std::vector<Var> inputs{x, w};
  if (b.valid()) inputs.push_back(b);
  return g.record("linear_cross_entropy", std::move(total), inputs,
                  [x, w, b, vocab_major, target, eps, exp_id, wts = std::move(wts), inv_z = std::move(f.inv_z)](
                      Graph& g, NodeId self) {
    Mat d = g.release(exp_id);
    const Mat scaled = wts * g.grad(self)(0, 0);
    Mat* db = b.valid() && g.needs_grad(b.id) ? &g.grad(b.id) : nullptr;
    rows_backward(d, inv_z, scaled, target, eps, db);
    if (g.needs_grad(x.id)) gemm(d, false, g.value(w.id), !vocab_major, g.grad(x.id), 1, 1);
    if (g.needs_grad(w.id)) {
      if (vocab_major) gemm(d, true, g.value(x.id), false, g.grad(w.id), 1, 1);    // dW[V,H] += dᵀ x
      else gemm(g.value(x.id), true, d, false, g.grad(w.id), 1, 1);                // dW[H,V] += xᵀ d
    }
    g.give(std::move(d));
  });
}

}  // namespace twin
