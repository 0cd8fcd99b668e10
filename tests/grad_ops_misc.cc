// Gradient checks for activations, embedding lookup, dropout and layer normalisation.
#include <gtest/gtest.h>

#include "gradcheck.h"
#include "ops/ops.h"

namespace twin::test {

TEST(OpGrad, Sigmoid) {
  check_op({{3, 4}}, [](Var x) { return sigmoid(x); });
}

TEST(OpGrad, Tanh) {
  check_op({{3, 4}}, [](Var x) { return tanh(x); });
}

TEST(OpGrad, Relu) {
  GradCheck gc;
  auto x = gc.input(3, 4);
  GradCheckOptions opt;
  opt.avoid_kinks_near = 1e-3;
  gc.check([&](Graph& g) { return relu(x.in(g)); }, opt);
}

TEST(OpGrad, Exp) {
  check_op({{3, 4}}, [](Var x) { return exp(x); });
}

TEST(OpGrad, LogOfExp) {
  check_op({{3, 4}}, [](Var x) { return log(exp(x)); });
}

TEST(OpGrad, LogOfPositiveQuadratic) {
  // log's own backward (1/x) at inputs ranging from 0.5 up: x² + 0.5 > 0 for every input scale.
  check_op({{3, 4}}, [](Var x) { return log(add_scalar(x * x, 0.5)); });
}

TEST(OpGrad, LookupSparseParamTable) {
  // A Param-backed table takes the sparse path: gradient rows written directly and marked touched.
  GradCheck gc;
  auto table = gc.input(6, 3);
  const Ids ids = {2, 0, 2, 4};
  gc.check([&](Graph& g) { return lookup(table.in(g), ids); });
  // After the check the table holds the marks of the last analytic pass: exactly rows {0, 2, 4}.
  const Param& p = *table.p;
  EXPECT_FALSE(p.all_touched);
  ASSERT_EQ(p.touched.size(), 6u);
  const std::vector<std::uint8_t> expected = {1, 0, 1, 0, 1, 0};
  EXPECT_EQ(p.touched, expected);
  for (Index r = 0; r < 6; ++r) EXPECT_EQ(p.row_touched(r), expected[static_cast<size_t>(r)] != 0) << "row " << r;
}

TEST(OpGrad, LookupDenseNonParamTable) {
  // A table that is an intermediate Var (not a Param) takes the dense path through Graph::grad.
  GradCheck gc;
  auto table = gc.input(5, 2);
  const Ids ids = {4, 1, 1};
  gc.check([&](Graph& g) { return lookup(scale(table.in(g), 1.0), ids); });
  EXPECT_TRUE(table.p->all_touched);   // the dense scale() backward wrote the whole table gradient
}

TEST(OpGrad, LookupTiedWithDenseUse) {
  // A tied embedding: the same Param read sparsely (lookup) and densely (output projection).
  GradCheck gc;
  auto table = gc.input(5, 3);
  const Ids ids = {3, 0};
  gc.check([&](Graph& g) { return matmul_nt(lookup(table.in(g), ids), table.in(g)); });
  EXPECT_TRUE(table.p->all_touched);
}

TEST(OpGrad, DropoutFixedMask) {
  // A fresh Rng with a fixed seed inside the function: every evaluation draws the same mask.
  GradCheck gc;
  auto x = gc.input(4, 5);
  gc.check([&](Graph& g) {
    Rng rng(1234);
    return dropout(x.in(g), 0.4, rng);
  });
}

TEST(OpGrad, LayerNorm) {
  check_op({{3, 4}, {1, 4}, {1, 4}}, [](Var x, Var gain, Var bias) { return layer_norm(x, gain, bias); });
}

TEST(OpGrad, LayerNormConstantGainBias) {
  GradCheck gc;
  auto x = gc.input(2, 5);
  const Mat gain = Mat::Constant(1, 5, 1.5), bias = Mat::Constant(1, 5, -0.5);
  gc.check([&](Graph& g) { return layer_norm(x.in(g), g.constant(gain), g.constant(bias)); });
}

}  // namespace twin::test
