// Fused ops: gradient checks, and equality (values AND gradients) with the compositions they replace
// (DESIGN §3.3 rule 7). Run in double so "equal" can mean 1e-12, not a float tolerance.
#include <gtest/gtest.h>

#include <functional>

#include "fused_compare.h"
#include "gradcheck.h"
#include "ops/ops.h"

namespace twin::test {

namespace {

Mat carry_mask() {   // B=4: rows 1 and 3 are padding at this step
  Mat m(4, 1);
  m << 1, 0, 1, 0;
  return m;
}

}  // namespace

TEST(OpGrad, MaskCarry) {
  GradCheck gc;
  auto next = gc.input(4, 3), prev = gc.input(4, 3);
  const Mat m = carry_mask();
  gc.check([&](Graph& g) { return mask_carry(next.in(g), prev.in(g), g.constant(m)); });
}

TEST(OpGrad, WeightedSumSteps) {
  GradCheck gc;
  auto alpha = gc.input(2, 3), values = gc.input(3 * 2, 4);   // B=2, S=3, D=4
  gc.check([&](Graph& g) { return weighted_sum_steps(alpha.in(g), values.in(g)); });
}

TEST(OpGrad, WeightedSumStepsOfMaskedSoftmax) {
  // The attention read as it is used: α = masked softmax over steps, padded steps get no weight.
  GradCheck gc;
  auto scores = gc.input(2, 3), values = gc.input(3 * 2, 2);
  Mat mask(2, 3);
  mask << 1, 1, 1, 1, 0, 0;
  gc.check([&](Graph& g) { return weighted_sum_steps(masked_softmax_rows(scores.in(g), mask), values.in(g)); });
}

TEST(OpFused, MaskCarryEqualsComposed) {
  ParamStore store;
  Param& nw = rand_param(store, "new", 4, 3);
  Param& old = rand_param(store, "old", 4, 3);
  const Mat m = carry_mask();
  auto fused = evaluate(store, [&](Graph& g) { return mask_carry(g.param(nw), g.param(old), g.constant(m)); });
  auto composed = evaluate(store, [&](Graph& g) {
    Var mv = g.constant(m);
    return mul_col(g.param(nw), mv) + mul_col(g.param(old), one_minus(mv));
  });
  expect_same(fused, composed, store, 1e-12);
  // And the carry itself: padded rows keep the old state bit-exactly.
  EXPECT_EQ(Mat(fused.value.row(1)), Mat(old.value.row(1)));
  EXPECT_EQ(Mat(fused.value.row(0)), Mat(nw.value.row(0)));
}

TEST(OpGrad, AtrUpdate) {
  check_op({{3, 4}, {3, 4}, {3, 4}}, [](Var p, Var q, Var h) { return atr_update(p, q, h); });
}

TEST(OpFused, AtrUpdateEqualsComposed) {
  ParamStore store;
  Param& p = rand_param(store, "p", 3, 4);
  Param& q = rand_param(store, "q", 3, 4);
  Param& h = rand_param(store, "h", 3, 4);
  auto fused = evaluate(store, [&](Graph& g) { return atr_update(g.param(p), g.param(q), g.param(h)); });
  auto composed = evaluate(store, [&](Graph& g) {
    Var pv = g.param(p), qv = g.param(q);
    return sigmoid(pv + qv) * pv + sigmoid(pv - qv) * g.param(h);
  });
  expect_same(fused, composed, store, 1e-12);
}

TEST(OpFused, WeightedSumStepsEqualsComposed) {
  const Index B = 3, S = 4, D = 2;
  ParamStore store;
  Param& alpha = rand_param(store, "alpha", B, S);
  Param& values = rand_param(store, "values", S * B, D);
  auto fused = evaluate(store, [&](Graph& g) { return weighted_sum_steps(g.param(alpha), g.param(values)); });
  auto composed = evaluate(store, [&](Graph& g) {
    Var a = g.param(alpha), v = g.param(values);
    Var y = mul_col(slice_rows(v, 0, B), slice_cols(a, 0, 1));
    for (Index s = 1; s < S; ++s) y = y + mul_col(slice_rows(v, s * B, B), slice_cols(a, s, 1));
    return y;
  });
  expect_same(fused, composed, store, 1e-12);
}

TEST(OpFused, AffineEqualsMatmulAddRow) {
  ParamStore store;
  Param& x = rand_param(store, "x", 3, 4);
  Param& w = rand_param(store, "W", 4, 5);
  Param& b = rand_param(store, "b", 1, 5);
  auto fused = evaluate(store, [&](Graph& g) { return affine(g.param(x), g.param(w), g.param(b)); });
  auto composed = evaluate(store, [&](Graph& g) { return add_row(matmul(g.param(x), g.param(w)), g.param(b)); });
  expect_same(fused, composed, store, 1e-12);
}

namespace {
// Composed per-row loss: -(1-ε) log p[y] - (ε/V) Σ_v log p[v].
Var composed_ce_rows(Var logits, const Ids& y, Real eps) {
  Var logp = log_softmax_rows(logits);
  Var rows = scale(pick(logp, y), -(1 - eps));
  if (eps != 0) rows = rows + scale(sum_cols(logp), -eps / static_cast<Real>(logits.cols()));
  return rows;
}
}  // namespace

TEST(OpFused, CrossEntropyRowsEqualsComposed) {
  const Ids y = {4, 0, 2};
  for (Real eps : {0.0, 0.1}) {
    ParamStore store;
    Param& x = rand_param(store, "logits", 3, 5);
    auto fused = evaluate(store, [&](Graph& g) { return cross_entropy_rows(g.param(x), y, eps); });
    auto composed = evaluate(store, [&](Graph& g) { return composed_ce_rows(g.param(x), y, eps); });
    SCOPED_TRACE("label smoothing " + std::to_string(eps));
    expect_same(fused, composed, store, 1e-12);
  }
}

TEST(OpFused, CrossEntropyEqualsComposed) {
  const Ids y = {4, 0, 2, 1};
  Mat mask(4, 1);
  mask << 1, 0, 1, 1;
  for (Real eps : {0.0, 0.1}) {
    for (bool masked : {false, true}) {
      ParamStore store;
      Param& x = rand_param(store, "logits", 4, 5);
      const Mat m = masked ? mask : Mat();
      auto fused = evaluate(store, [&](Graph& g) { return cross_entropy(g.param(x), y, m, eps); });
      auto composed = evaluate(store, [&](Graph& g) {
        Var rows = composed_ce_rows(g.param(x), y, eps);
        return masked ? sum_all(mul_col(rows, g.constant(mask))) : sum_all(rows);
      });
      SCOPED_TRACE("label smoothing " + std::to_string(eps) + (masked ? " masked" : " unmasked"));
      expect_same(fused, composed, store, 1e-12);
      if (masked) {   // a masked-out row contributes no gradient at all
        EXPECT_EQ(fused.grads[0].row(1).cwiseAbs().maxCoeff(), 0.0);
      }
    }
  }
}

}  // namespace twin::test
