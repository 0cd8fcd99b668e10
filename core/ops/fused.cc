#include "ops/fused.h"

#include "ops/activations.h"

namespace twin {

// y = m new + (1-m) old        dnew += m dy, dold += (1-m) dy
Var mask_carry(Var next, Var prev, Var m) {
  TW_CHECK(next.rows() == prev.rows() && next.cols() == prev.cols(), "mask_carry: new ", shape_str(next), " old ",
           shape_str(prev));
  TW_CHECK(m.cols() == 1 && m.rows() == next.rows(), "mask_carry: mask ", shape_str(m), " for ", shape_str(next));
  TW_CHECK(!m.g->needs_grad(m.id), "mask_carry: the mask must be a constant");
  const auto mc = m.val().col(0).array();
  Mat y = (next.val().array().colwise() * mc + prev.val().array().colwise() * (Real(1) - mc)).matrix();
  return next.g->record("mask_carry", std::move(y), {next, prev, m}, [next, prev, m](Graph& g, NodeId self) {
    const auto dy = g.grad(self).array();
    const auto mc = g.value(m.id).col(0).array();
    if (g.needs_grad(next.id)) g.accumulate(next.id, dy.colwise() * mc);
    if (g.needs_grad(prev.id)) g.accumulate(prev.id, dy.colwise() * (Real(1) - mc));
  });
}

// dα[b,s] += dy[b] · V[s*B+b],   dV[s*B+b] += α[b,s] dy[b]
Var weighted_sum_steps(Var alpha, Var values) {
  const Index B = alpha.rows(), S = alpha.cols();
  TW_CHECK(values.rows() == S * B, "weighted_sum_steps: alpha ", shape_str(alpha), " values ", shape_str(values));
  Mat y = Mat::Zero(B, values.cols());
  for (Index s = 0; s < S; ++s)
    y.array() += values.val().middleRows(s * B, B).array().colwise() * alpha.val().col(s).array();
  return alpha.g->record("weighted_sum_steps", std::move(y), {alpha, values},
                         [alpha, values, B, S](Graph& g, NodeId self) {
                           const Mat& dy = g.grad(self);
                           const Mat& v = g.value(values.id);
                           const Mat& a = g.value(alpha.id);
                           if (g.needs_grad(alpha.id)) {
                             Mat& da = g.grad(alpha.id);
                             for (Index s = 0; s < S; ++s)
                               da.col(s) += (v.middleRows(s * B, B).array() * dy.array()).rowwise().sum().matrix();
                           }
                           if (g.needs_grad(values.id)) {
                             Mat& dv = g.grad(values.id);
                             for (Index s = 0; s < S; ++s)
                               dv.middleRows(s * B, B).array() += dy.array().colwise() * a.col(s).array();
                           }
                         });
}

// i = σ(p+q), f = σ(p−q), h = i p + f h_prev; with di = dh p, df = dh h_prev:
//   dp += dh i + di i(1−i) + df f(1−f)     dq += di i(1−i) − df f(1−f)     dh_prev += dh f
Var atr_update(Var p, Var q, Var h_prev) {
  TW_CHECK(p.rows() == q.rows() && p.cols() == q.cols() && p.rows() == h_prev.rows() && p.cols() == h_prev.cols(),
           "atr_update: p ", shape_str(p), " q ", shape_str(q), " h_prev ", shape_str(h_prev));
  Mat i = sigmoid(Mat(p.val() + q.val()));
  Mat f = sigmoid(Mat(p.val() - q.val()));
  Mat h = (i.array() * p.val().array() + f.array() * h_prev.val().array()).matrix();
  return p.g->record("atr_update", std::move(h), {p, q, h_prev},
                     [p, q, h_prev, i = std::move(i), f = std::move(f)](Graph& g, NodeId self) {
                       const auto dh = g.grad(self).array();
                       const auto ia = i.array(), fa = f.array();
                       const auto gi = dh * g.value(p.id).array() * ia * (Real(1) - ia);       // d(p+q)
                       const auto gf = dh * g.value(h_prev.id).array() * fa * (Real(1) - fa);  // d(p−q)
                       if (g.needs_grad(p.id)) g.accumulate(p.id, dh * ia + gi + gf);
                       if (g.needs_grad(q.id)) g.accumulate(q.id, gi - gf);
                       if (g.needs_grad(h_prev.id)) g.accumulate(h_prev.id, dh * fa);
                     });
}

}  // namespace twin
