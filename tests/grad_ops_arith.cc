// Gradient checks for arithmetic and linear-algebra ops (DESIGN §5.5). Shapes are tiny on purpose:
// every entry of every input is perturbed twice at three input scales.
#include <gtest/gtest.h>

#include "gradcheck.h"
#include "ops/ops.h"

namespace twin::test {

TEST(OpGrad, Add) {
  GradCheck gc;
  auto a = gc.input(3, 4), b = gc.input(3, 4);
  gc.check([&](Graph& g) { return a.in(g) + b.in(g); });
}

TEST(OpGrad, Sub) {
  GradCheck gc;
  auto a = gc.input(3, 4), b = gc.input(3, 4);
  gc.check([&](Graph& g) { return a.in(g) - b.in(g); });
}

TEST(OpGrad, Mul) {
  GradCheck gc;
  auto a = gc.input(3, 4), b = gc.input(3, 4);
  gc.check([&](Graph& g) { return a.in(g) * b.in(g); });
}

TEST(OpGrad, MulSameVarTwice) {
  // x ⊙ x: both backward branches accumulate into the same gradient (catches '=' for '+=').
  GradCheck gc;
  auto a = gc.input(3, 4);
  gc.check([&](Graph& g) { return a.in(g) * a.in(g); });
}

TEST(OpGrad, SubWithConstantOperand) {
  // A constant operand is skipped by backward (op contract rule 4) and must not disturb the other side.
  GradCheck gc;
  auto a = gc.input(3, 4);
  Mat c = Mat::Constant(3, 4, 0.5);
  gc.check([&](Graph& g) { return g.constant(c) - a.in(g); });
}

TEST(OpGrad, AddRow) {
  GradCheck gc;
  auto x = gc.input(3, 4), b = gc.input(1, 4);
  gc.check([&](Graph& g) { return add_row(x.in(g), b.in(g)); });
}

TEST(OpGrad, MulCol) {
  GradCheck gc;
  auto x = gc.input(3, 4), c = gc.input(3, 1);
  gc.check([&](Graph& g) { return mul_col(x.in(g), c.in(g)); });
}

TEST(OpGrad, ScaleAddScalarOneMinus) {
  GradCheck gc;
  auto x = gc.input(3, 4);
  gc.check([&](Graph& g) { return one_minus(add_scalar(scale(x.in(g), -1.7), 0.3)); });
}

TEST(OpGrad, SumAll) {
  GradCheck gc;
  auto x = gc.input(3, 4);
  gc.check([&](Graph& g) { return sum_all(x.in(g)); });
}

TEST(OpGrad, AddTileRows) {
  GradCheck gc;
  auto x = gc.input(3 * 2, 4), q = gc.input(2, 4);   // S=3 steps, B=2
  gc.check([&](Graph& g) { return add_tile_rows(x.in(g), q.in(g)); });
}

TEST(OpGrad, MulTileRows) {
  GradCheck gc;
  auto x = gc.input(3 * 2, 4), m = gc.input(2, 4);
  gc.check([&](Graph& g) { return mul_tile_rows(x.in(g), m.in(g)); });
}

TEST(OpGrad, Matmul) {
  GradCheck gc;
  auto x = gc.input(3, 4), w = gc.input(4, 2);
  gc.check([&](Graph& g) { return matmul(x.in(g), w.in(g)); });
}

TEST(OpGrad, MatmulSquareSelf) {
  // x x with the same Var on both sides: both gemm accumulations land in one gradient.
  GradCheck gc;
  auto x = gc.input(3, 3);
  gc.check([&](Graph& g) { return matmul(x.in(g), x.in(g)); });
}

TEST(OpGrad, MatmulNt) {
  GradCheck gc;
  auto x = gc.input(3, 4), w = gc.input(5, 4);
  gc.check([&](Graph& g) { return matmul_nt(x.in(g), w.in(g)); });
}

TEST(OpGrad, Affine) {
  GradCheck gc;
  auto x = gc.input(3, 4), w = gc.input(4, 2), b = gc.input(1, 2);
  gc.check([&](Graph& g) { return affine(x.in(g), w.in(g), b.in(g)); });
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
