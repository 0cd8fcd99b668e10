// Gradient checks for slicing, joining and reordering ops.
#include <gtest/gtest.h>

#include "gradcheck.h"
#include "ops/ops.h"

namespace twin::test {

TEST(OpGrad, SliceRows) {
  check_op({{5, 3}}, [](Var x) { return slice_rows(x, 1, 3); });
}

TEST(OpGrad, SliceRowsOverlapping) {
  // Two overlapping slices of one Var: the shared rows receive both gradients.
  check_op({{5, 3}}, [](Var x) { return slice_rows(x, 0, 3) * slice_rows(x, 2, 3); });
}

TEST(OpGrad, SliceCols) {
  check_op({{3, 5}}, [](Var x) { return slice_cols(x, 2, 3) + slice_cols(x, 1, 3); });
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
  check_op({{3, 4}}, [](Var x) { return reshape(x, 2, 6); });
}

TEST(OpGrad, ReshapeNonTrivialUpstream) {
  // Reshape sandwiched between ops, so its output gradient is not the raw R of the harness.
  check_op({{3, 4}, {6, 2}}, [](Var x, Var w) { return matmul(reshape(tanh(x), 2, 6), w); });
}

TEST(OpGrad, Transpose) {
  check_op({{3, 4}, {3, 2}}, [](Var x, Var w) { return matmul(transpose(x), w); });
}

}  // namespace twin::test
