#include "ops/additive_heads.h"

#include "ops/shape.h"

namespace twin {

namespace {
using RowMap = Eigen::Map<Mat>;
using ConstRowMap = Eigen::Map<const Mat>;
}  // namespace

Var additive_scores_heads(Var K, Var q, Var v, Index heads) {
  Graph& g = *K.g;
  const Index B = q.rows(), A = q.cols();
  TW_CHECK(heads > 0 && A % heads == 0, "additive_scores_heads: ", heads, " heads do not divide the width ", A,
           " of q ", shape_str(q));
  TW_CHECK(B > 0 && K.rows() % B == 0 && K.cols() == A, "additive_scores_heads: keys ", shape_str(K),
           " are not [S*B x ", A, "] for the query ", shape_str(q));
  const Index S = K.rows() / B, n = heads, a = A / n;
  TW_CHECK(v.rows() == a && v.cols() == 1, "additive_scores_heads: v is ", shape_str(v), " but [", a,
           "x1] was expected (one weight per column of a head)");
  Mat t = g.take(S * B, A);
  for (Index s = 0; s < S; ++s)
    t.middleRows(s * B, B) = (K.val().middleRows(s * B, B) + q.val()).array().tanh().matrix();
  // Row-major: [S*B, A] is [S*B*n, a] with row (s*B + b)*n + h = head h of row s*B + b.
  Mat ev = g.take(S * B * n, 1);
  ev.noalias() = ConstRowMap(t.data(), S * B * n, a) * v.val();
  Mat e = g.take(B * n, S);
  for (Index s = 0; s < S; ++s) e.col(s) = ev.middleRows(s * B * n, B * n);
  g.give(std::move(ev));
  if (!g.training()) {
    g.give(std::move(t));
    return g.record("additive_scores_heads", std::move(e), {K, q, v}, nullptr);
  }
  const NodeId tid = g.stash(std::move(t));
  return g.record("additive_scores_heads", std::move(e), {K, q, v}, [K, q, v, tid, S, B, n, a](Graph& g, NodeId self) {
    const Mat& t = g.value(tid);
    const Mat& de = g.grad(self);
    const ConstRowMap tv(t.data(), S * B * n, a);
    Mat dev = g.take(S * B * n, 1);   // dE in T's row order
    for (Index s = 0; s < S; ++s) dev.middleRows(s * B * n, B * n) = de.col(s);
    if (g.needs_grad(v.id)) {
      Mat dv = g.take(a, 1);
      dv.noalias() = tv.transpose() * dev;
      g.add_grad(v.id, std::move(dv));
    }
    if (g.needs_grad(K.id) || g.needs_grad(q.id)) {
      Mat gk = g.take(S * B, n * a);
      RowMap gv(gk.data(), S * B * n, a);
      gv.noalias() = dev * g.value(v.id).transpose();
      gv.array() *= Real(1) - tv.array().square();
      if (g.needs_grad(q.id)) {
        const Graph::GradOut dq = g.grad_out(q.id);
        if (dq.fresh) dq.m = gk.topRows(B);
        else dq.m += gk.topRows(B);
        for (Index s = 1; s < S; ++s) dq.m += gk.middleRows(s * B, B);
      }
      if (g.needs_grad(K.id)) g.add_grad(K.id, std::move(gk));
      else g.give(std::move(gk));
    }
    g.give(std::move(dev));
  });
}

}  // namespace twin
