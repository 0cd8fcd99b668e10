// Gradient checks for slicing, joining and reordering ops.
#include <gtest/gtest.h>

#include "gradcheck.h"
#include "ops/ops.h"

namespace twin::test {

TEST(OpGrad, SliceRows) {
  GradCheck gc;
  auto x = gc.input(5, 3);
  gc.check([&](Graph& g) { return slice_rows(x.in(g), 1, 3); });
}

TEST(OpGrad, SliceRowsOverlapping) {
  // Two overlapping slices of one Var: the shared rows receive both gradients.
  GradCheck gc;
  auto x = gc.input(5, 3);
  gc.check([&](Graph& g) { return slice_rows(x.in(g), 0, 3) * slice_rows(x.in(g), 2, 3); });
}

TEST(OpGrad, SliceCols) {
  GradCheck gc;
  auto x = gc.input(3, 5);
  gc.check([&](Graph& g) { return slice_cols(x.in(g), 2, 3) + slice_cols(x.in(g), 1, 3); });
}

TEST(OpGrad, ConcatCols) {
  GradCheck gc;
  auto a = gc.input(3, 2), b = gc.input(3, 1), c = gc.input(3, 3);
  Mat k = Mat::Constant(3, 2, -0.25);   // a constant block in the middle is skipped by backward
  gc.check([&](Graph& g) { return concat_cols({a.in(g), g.constant(k), b.in(g), c.in(g)}); });
}

TEST(OpGrad, StackRows) {
  GradCheck gc;
  auto a = gc.input(2, 3), b = gc.input(1, 3);
  Mat k = Mat::Constant(2, 3, 0.75);
  gc.check([&](Graph& g) { return stack_rows({a.in(g), g.constant(k), b.in(g), a.in(g)}); });
}

TEST(OpGrad, SelectRowsWithRepeats) {
  GradCheck gc;
  auto x = gc.input(4, 3);
  const Ids rows = {3, 0, 3, 1, 3};   // row 2 never selected, row 3 three times (scatter-add)
  gc.check([&](Graph& g) { return select_rows(x.in(g), rows); });
}

TEST(OpGrad, Reshape) {
  GradCheck gc;
  auto x = gc.input(3, 4);
  gc.check([&](Graph& g) { return reshape(x.in(g), 2, 6); });
}

TEST(OpGrad, ReshapeNonTrivialUpstream) {
  // Reshape sandwiched between ops, so its output gradient is not the raw R of the harness.
  GradCheck gc;
  auto x = gc.input(3, 4), w = gc.input(6, 2);
  gc.check([&](Graph& g) { return matmul(reshape(tanh(x.in(g)), 2, 6), w.in(g)); });
}

TEST(OpGrad, Transpose) {
  GradCheck gc;
  auto x = gc.input(3, 4), w = gc.input(3, 2);
  gc.check([&](Graph& g) { return matmul(transpose(x.in(g)), w.in(g)); });
}

}  // namespace twin::test
