#include "ops/attention_ops.h"

#include <omp.h>

#include <cmath>
#include <limits>

namespace twin {

namespace {

using ConstBlock = Eigen::Map<const Mat, 0, Eigen::OuterStride<>>;
using Block = Eigen::Map<Mat, 0, Eigen::OuterStride<>>;

struct Dims {
  Index T, B, H, dh, K;   // steps, sequences, heads, head width, clipping distance
  Real s;                 // 1/√d_h
  Index R() const { return 2 * K + 1; }
  Index pairs() const { return B * H; }
  // The [T, d_h] block of sequence b, head h inside a time-major [T*B, D] matrix (rows t*B + b).
  ConstBlock blk(const Mat& x, Index b, Index h) const {
    return ConstBlock(x.data() + b * x.cols() + h * dh, T, dh, Eigen::OuterStride<>(B * x.cols()));
  }
  Block blk(Mat& x, Index b, Index h) const {
    return Block(x.data() + b * x.cols() + h * dh, T, dh, Eigen::OuterStride<>(B * x.cols()));
  }
  // α of pair p = h*B + b: rows [p*T, (p+1)*T) of the [H*B*T, T] store (so head h is rows [h*B*T, (h+1)*B*T)).
  Eigen::Map<const Mat> alpha(const Mat& a, Index p) const { return Eigen::Map<const Mat>(a.data() + p * T * T, T, T); }
  Eigen::Map<Mat> alpha(Mat& a, Index p) const { return Eigen::Map<Mat>(a.data() + p * T * T, T, T); }
  // Worth a parallel region (the same threshold as the softmax losses: 64k multiply-adds).
  bool parallel() const { return static_cast<double>(pairs()) * T * T * dh >= (1 << 16); }
};

// Forward of one (sequence, head) pair: fills α [T, T] and writes z into the output block.
void forward_pair(const Dims& d, Index b, Index h, const Mat& q, const Mat& k, const Mat& v, const Mat& key_mask,
                  const Mat* rk, const Mat* rv, Eigen::Map<Mat> a, Mat& out) {
  const Index T = d.T;
  const auto Q = d.blk(q, b, h), K = d.blk(k, b, h), V = d.blk(v, b, h);   // [T, d_h]
  Mat e = d.s * (Q * K.transpose());                                       // [T, T]
  if (rk) {
    const Mat p = d.s * (Q * rk->transpose());                             // [T, 2k+1]
    for (Index i = 0; i < T; ++i)
      for (Index j = 0; j < T; ++j) e(i, j) += p(i, relative_index(i, j, d.K));
  }
  for (Index i = 0; i < T; ++i) {
    Real mx = -std::numeric_limits<Real>::infinity();
    for (Index j = 0; j < T; ++j)
      if (key_mask(b, j) != 0) mx = std::max(mx, e(i, j));
    Real z = 0;
    for (Index j = 0; j < T; ++j) z += (a(i, j) = key_mask(b, j) != 0 ? std::exp(e(i, j) - mx) : Real(0));
    a.row(i) /= z;
  }
  auto Z = d.blk(out, b, h);                                               // [T, d_h]
  Z.noalias() = a * V;
  if (rv) {
    Mat A = Mat::Zero(T, d.R());                                           // A_ir = Σ_{j: r(i,j)=r} α_ij
    for (Index i = 0; i < T; ++i)
      for (Index j = 0; j < T; ++j) A(i, relative_index(i, j, d.K)) += a(i, j);
    Z.noalias() += A * (*rv);
  }
}

struct Grads {   // destinations of one backward pass (nullptr: not needed)
  Mat *dq, *dk, *dv;
  Mat *drk, *drv;   // [pairs*(2k+1), d_h]: one block per pair, summed afterwards
};

void backward_pair(const Dims& d, Index b, Index h, const Mat& q, const Mat& k, const Mat& v, const Mat* rk,
                   const Mat* rv, Eigen::Map<const Mat> a, const Mat& dout, const Grads& gr) {
  const Index T = d.T, R = d.R(), p = h * d.B + b;
  const auto Q = d.blk(q, b, h), K = d.blk(k, b, h), V = d.blk(v, b, h);
  const auto dZ = d.blk(dout, b, h);                                       // [T, d_h]
  if (gr.dv) d.blk(*gr.dv, b, h).noalias() += a.transpose() * dZ;
  if (gr.drv) {
    Mat A = Mat::Zero(T, R);
    for (Index i = 0; i < T; ++i)
      for (Index j = 0; j < T; ++j) A(i, relative_index(i, j, d.K)) += a(i, j);
    gr.drv->middleRows(p * R, R).noalias() = A.transpose() * dZ;
  }
  if (!gr.dq && !gr.dk && !gr.drk) return;
  Mat da = dZ * V.transpose();                                             // dα [T, T]
  if (rv) {
    const Mat dA = dZ * rv->transpose();                                   // [T, 2k+1]
    for (Index i = 0; i < T; ++i)
      for (Index j = 0; j < T; ++j) da(i, j) += dA(i, relative_index(i, j, d.K));
  }
  const auto dot = (a.array() * da.array()).rowwise().sum().eval();        // [T, 1]
  const Mat de = (a.array() * (da.array().colwise() - dot)).matrix();      // dE [T, T]
  if (gr.dq) d.blk(*gr.dq, b, h).noalias() += d.s * (de * K);
  if (gr.dk) d.blk(*gr.dk, b, h).noalias() += d.s * (de.transpose() * Q);
  if (rk) {
    Mat dp = Mat::Zero(T, R);                                              // dP_ir = Σ_{j: r(i,j)=r} dE_ij
    for (Index i = 0; i < T; ++i)
      for (Index j = 0; j < T; ++j) dp(i, relative_index(i, j, d.K)) += de(i, j);
    if (gr.dq) d.blk(*gr.dq, b, h).noalias() += d.s * (dp * (*rk));
    if (gr.drk) gr.drk->middleRows(p * R, R).noalias() = d.s * (dp.transpose() * Q);
  }
}

// Σ over pairs of the per-pair blocks, in pair order.
Mat sum_blocks(const Mat& parts, Index pairs, Index R) {
  Mat s = parts.topRows(R);
  for (Index p = 1; p < pairs; ++p) s += parts.middleRows(p * R, R);
  return s;
}

}  // namespace

Var scaled_dot_attention(Var q, Var k, Var v, const Mat& mask, Index batch, Index heads, Var rel_k, Var rel_v,
                         Index clip_k, std::vector<Mat>* weights_out) {
  Graph& g = *q.g;
  const Index N = q.rows(), D = q.cols();
  TW_CHECK(k.rows() == N && k.cols() == D && v.rows() == N && v.cols() == D, "scaled_dot_attention: q ",
           shape_str(q), " k ", shape_str(k), " v ", shape_str(v), " must have the same shape");
  TW_CHECK(batch > 0 && N > 0 && N % batch == 0, "scaled_dot_attention: ", shape_str(q),
           " is not [T*B, D] time-major for batch B=", batch);
  TW_CHECK(heads > 0 && D % heads == 0, "scaled_dot_attention: width D=", D, " is not divisible by heads=", heads);
  const Index dh = D / heads;
  const Dims d{N / batch, batch, heads, dh, clip_k, Real(1) / std::sqrt(static_cast<Real>(dh))};
  for (const Var* r : {&rel_k, &rel_v})
    if (r->valid())
      TW_CHECK(clip_k >= 0 && r->rows() == d.R() && r->cols() == dh, "scaled_dot_attention: relative table ",
               shape_str(*r), " must be [2k+1 x d_h] = [", 2 * clip_k + 1, "x", dh, "] for k=", clip_k);
  Mat key_mask = Mat::Ones(d.B, d.T);                                      // [B, T]
  if (mask.size() > 0) {
    TW_CHECK(mask.rows() == N && mask.cols() == 1, "scaled_dot_attention: mask ", shape_str(mask),
             " must be [T*B x 1] = [", N, "x1]");
    for (Index t = 0; t < d.T; ++t)
      for (Index b = 0; b < d.B; ++b) {
        const Real m = mask(t * d.B + b, 0);
        TW_CHECK(m == 0 || m == 1, "scaled_dot_attention: mask entries must be 0 or 1, got ", m, " at row ",
                 t * d.B + b);
        key_mask(b, t) = m;
      }
    for (Index b = 0; b < d.B; ++b)
      TW_CHECK(key_mask.row(b).sum() > 0, "scaled_dot_attention: sequence ", b, " has no real position");
  }

  const Mat *rk = rel_k.valid() ? &rel_k.val() : nullptr, *rv = rel_v.valid() ? &rel_v.val() : nullptr;
  Mat alpha = g.take(d.pairs() * d.T, d.T);                                // [H*B*T, T]
  Mat out = g.take(N, D);                                                  // [T*B, D]
  const Mat &qv = q.val(), &kv = k.val(), &vv = v.val();
#pragma omp parallel for schedule(static) if (d.parallel())
  for (Index p = 0; p < d.pairs(); ++p)
    forward_pair(d, p % d.B, p / d.B, qv, kv, vv, key_mask, rk, rv, d.alpha(alpha, p), out);
  if (weights_out)
    for (Index h = 0; h < heads; ++h) weights_out->push_back(alpha.middleRows(h * d.B * d.T, d.B * d.T));

  std::vector<Var> inputs = {q, k, v};
  if (rel_k.valid()) inputs.push_back(rel_k);
  if (rel_v.valid()) inputs.push_back(rel_v);
  if (!g.training()) {
    g.give(std::move(alpha));
    return g.record("scaled_dot_attention", std::move(out), inputs, nullptr);
  }
  const NodeId sa = g.stash(std::move(alpha));
  return g.record("scaled_dot_attention", std::move(out), inputs, [q, k, v, rel_k, rel_v, d, sa](Graph& g, NodeId self) {
    auto need = [&g](Var x) { return x.valid() && g.needs_grad(x.id); };
    const Index R = d.R();
    Mat drk_parts, drv_parts;
    if (need(rel_k)) drk_parts = g.take(d.pairs() * R, d.dh);
    if (need(rel_v)) drv_parts = g.take(d.pairs() * R, d.dh);
    // Gradients are allocated here, outside the parallel region (Graph::grad allocates on first use).
    const Grads gr{need(q) ? &g.grad(q.id) : nullptr, need(k) ? &g.grad(k.id) : nullptr,
                   need(v) ? &g.grad(v.id) : nullptr, need(rel_k) ? &drk_parts : nullptr,
                   need(rel_v) ? &drv_parts : nullptr};
    const Mat *rk = rel_k.valid() ? &g.value(rel_k.id) : nullptr, *rv = rel_v.valid() ? &g.value(rel_v.id) : nullptr;
    const Mat &qv = g.value(q.id), &kv = g.value(k.id), &vv = g.value(v.id), &alpha = g.value(sa);
    const Mat& dout = g.grad(self);
    // Every pair writes only its own rows and columns of dQ, dK, dV (even when q, k, v are one node) and its
    // own block of the relative-table parts: no two iterations touch the same entry.
#pragma omp parallel for schedule(static) if (d.parallel())
    for (Index p = 0; p < d.pairs(); ++p)
      backward_pair(d, p % d.B, p / d.B, qv, kv, vv, rk, rv, d.alpha(alpha, p), dout, gr);
    if (gr.drk) {
      g.grad(rel_k.id) += sum_blocks(drk_parts, d.pairs(), R);
      g.give(std::move(drk_parts));
    }
    if (gr.drv) {
      g.grad(rel_v.id) += sum_blocks(drv_parts, d.pairs(), R);
      g.give(std::move(drv_parts));
    }
  });
}

}  // namespace twin
