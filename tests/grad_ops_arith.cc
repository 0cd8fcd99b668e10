// Gradient checks for arithmetic and linear-algebra ops (DESIGN §5.5). Shapes are tiny on purpose:
// every entry of every input is perturbed twice at three input scales.
#include <gtest/gtest.h>

#include "gradcheck.h"
#include "ops/ops.h"

namespace twin::test {

TEST(OpGrad, Add) {
  check_op({{3, 4}, {3, 4}}, [](Var a, Var b) { return a + b; });
}

TEST(OpGrad, Sub) {
  check_op({{3, 4}, {3, 4}}, [](Var a, Var b) { return a - b; });
}

TEST(OpGrad, Mul) {
  check_op({{3, 4}, {3, 4}}, [](Var a, Var b) { return a * b; });
}

TEST(OpGrad, MulSameVarTwice) {
  // x ⊙ x: both backward branches accumulate into the same gradient (catches '=' for '+=').
  check_op({{3, 4}}, [](Var a) { return a * a; });
}

TEST(OpGrad, SubWithConstantOperand) {
  // A constant operand is skipped by backward (op contract rule 4) and must not disturb the other side.
  GradCheck gc;
  auto a = gc.input(3, 4);
  Mat c = Mat::Constant(3, 4, 0.5);
  gc.check([&](Graph& g) { return g.constant(c) - a.in(g); });
}

TEST(OpGrad, AddRow) {
  check_op({{3, 4}, {1, 4}}, [](Var x, Var b) { return add_row(x, b); });
}

TEST(OpGrad, MulCol) {
  check_op({{3, 4}, {3, 1}}, [](Var x, Var c) { return mul_col(x, c); });
}

TEST(OpGrad, ScaleAddScalarOneMinus) {
  check_op({{3, 4}}, [](Var x) { return one_minus(add_scalar(scale(x, -1.7), 0.3)); });
}

TEST(OpGrad, SumAll) {
  check_op({{3, 4}}, [](Var x) { return sum_all(x); });
}

TEST(OpGrad, AddTileRows) {
  GradCheck gc;
  auto x = gc.input(3 * 2, 4), q = gc.input(2, 4);   // S=3 steps, B=2
  gc.check([&](Graph& g) { return add_tile_rows(x.in(g), q.in(g)); });
}

TEST(OpGrad, MulTileRows) {
  check_op({{3 * 2, 4}, {2, 4}}, [](Var x, Var m) { return mul_tile_rows(x, m); });
}

TEST(OpGrad, Matmul) {
  check_op({{3, 4}, {4, 2}}, [](Var x, Var w) { return matmul(x, w); });
}

TEST(OpGrad, MatmulSquareSelf) {
  // x x with the same Var on both sides: both gemm accumulations land in one gradient.
  check_op({{3, 3}}, [](Var x) { return matmul(x, x); });
}

TEST(OpGrad, MatmulNt) {
  check_op({{3, 4}, {5, 4}}, [](Var x, Var w) { return matmul_nt(x, w); });
}

TEST(OpGrad, Affine) {
  check_op({{3, 4}, {4, 2}, {1, 2}}, [](Var x, Var w, Var b) { return affine(x, w, b); });
}

TEST(OpGrad, AffineConstantInput) {
  // Data x is a constant: only W and b get gradients (the usual first layer).
  GradCheck gc;
  auto w = gc.input(4, 2), b = gc.input(1, 2);
  Mat x(3, 4);
  x << 1, -2, 0.5, 3, 0, 1, -1, 2, 0.25, 0.75, -0.5, 1;
  gc.check([&](Graph& g) { return affine(g.constant(x), w.in(g), b.in(g)); });
}

}  // namespace twin::test
