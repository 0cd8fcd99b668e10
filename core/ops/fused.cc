#include "ops/fused.h"

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
    if (g.needs_grad(next.id)) g.grad(next.id).array() += dy.colwise() * mc;
    if (g.needs_grad(prev.id)) g.grad(prev.id).array() += dy.colwise() * (Real(1) - mc);
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

}  // namespace twin
