// Gradient checks for reductions, including masked reductions over time ([T*B, D] time-major).
#include <gtest/gtest.h>

#include "gradcheck.h"
#include "ops/ops.h"

namespace twin::test {

namespace {
// T=3, B=3 time-major mask [T*B, 1]: lengths 3, 1 and 0 (an empty sequence must not produce NaN).
Mat lengths_3_1_0() {
  Mat m(9, 1);
  m << 1, 1, 0,   // t = 0
      1, 0, 0,    // t = 1
      1, 0, 0;    // t = 2
  return m;
}
}  // namespace

TEST(OpGrad, SumRows) {
  check_op({{3, 4}}, [](Var x) { return sum_rows(x); });
}

TEST(OpGrad, SumCols) {
  check_op({{3, 4}}, [](Var x) { return sum_cols(x); });
}

TEST(OpGrad, MeanRowsMasked) {
  GradCheck gc;
  auto x = gc.input(9, 2);
  const Mat mask = lengths_3_1_0();
  gc.check([&](Graph& g) { return mean_rows_masked(x.in(g), mask, 3); });
}

TEST(OpGrad, MeanRowsMaskedFractionalWeights) {
  GradCheck gc;
  auto x = gc.input(6, 2);
  Mat w(6, 1);
  w << 0.5, 1, 2, 0, 0.25, 1;
  gc.check([&](Graph& g) { return mean_rows_masked(x.in(g), w, 2); });
}

TEST(OpGrad, MaxOverTime) {
  GradCheck gc;
  auto x = gc.input(9, 2);
  const Mat mask = lengths_3_1_0();
  GradCheckOptions opt;
  opt.avoid_kinks_near = 1e-3;
  gc.check([&](Graph& g) { return max_over_time(x.in(g), mask, 3); }, opt);
}

TEST(OpGrad, MaxOverTimeAfterTanh) {
  // Upstream of a non-leaf: the argmax scatter goes through another backward.
  GradCheck gc;
  auto x = gc.input(8, 3);
  const Mat mask = Mat::Ones(8, 1);
  GradCheckOptions opt;
  opt.avoid_kinks_near = 1e-3;
  gc.check([&](Graph& g) { return max_over_time(tanh(x.in(g)), mask, 2); }, opt);
}

}  // namespace twin::test
