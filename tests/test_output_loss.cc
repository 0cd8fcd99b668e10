// linear_cross_entropy (ops/output_loss.h) equals the composition it replaces, cross_entropy(affine(...)) or
// cross_entropy(add_row(matmul_nt(...))), in value and every gradient, on shapes large enough for its
// parallel row loop and several bias blocks; and gives identical numbers on one and two threads.
#include <gtest/gtest.h>

#include "base/threads.h"
#include "fused_compare.h"
#include "ops/ops.h"

namespace twin::test {
namespace {

constexpr Index kN = 150, kH = 24, kV = 700;   // N x V >= 2^16: the parallel path; 3 blocks of bias rows

Ids targets() {
  Ids y(kN);
  for (Index n = 0; n < kN; ++n) y[static_cast<size_t>(n)] = static_cast<std::int32_t>((n * 37 + 5) % kV);
  return y;
}

Mat mask_with_zeros() {
  Mat m = Mat::Ones(kN, 1);
  for (Index n = 0; n < kN; n += 7) m(n, 0) = 0;
  m(3, 0) = 0.5;
  return m;
}

struct Model {
  ParamStore store;
  Param& x = rand_param(store, "x", kN, kH);
  Param& w;
  Param& b = rand_param(store, "b", 1, kV);
  explicit Model(bool vocab_major) : w(rand_param(store, "W", vocab_major ? kV : kH, vocab_major ? kH : kV)) {}
};

void compare(bool vocab_major, Real eps, const Mat& mask) {
  Model m(vocab_major);
  const Ids y = targets();
  const Evaluated fused = evaluate(m.store, [&](Graph& g) {
    return linear_cross_entropy(g.param(m.x), g.param(m.w), vocab_major, g.param(m.b), y, mask, eps);
  });
  const Evaluated composed = evaluate(m.store, [&](Graph& g) {
    Var logits = vocab_major ? add_row(matmul_nt(g.param(m.x), g.param(m.w)), g.param(m.b))
                             : affine(g.param(m.x), g.param(m.w), g.param(m.b));
    return cross_entropy(logits, y, mask, eps);
  });
  expect_same(fused, composed, m.store, 2e-3);
  EXPECT_GT(fused.value(0, 0), 0);
}

TEST(LinearCrossEntropy, EqualsAffineThenCrossEntropy) { compare(false, 0, Mat()); }
TEST(LinearCrossEntropy, EqualsWithMaskAndLabelSmoothing) { compare(false, 0.1, mask_with_zeros()); }
TEST(LinearCrossEntropy, EqualsTiedFormWithMask) { compare(true, 0.1, mask_with_zeros()); }

TEST(LinearCrossEntropy, InferenceValueEqualsTrainingValue) {
  Model m(false);
  const Ids y = targets();
  Graph train(Mode::kTrain), infer(Mode::kInfer);
  const Real a = linear_cross_entropy(train.param(m.x), train.param(m.w), false, train.param(m.b), y, Mat()).val()(0, 0);
  const Real b = linear_cross_entropy(infer.param(m.x), infer.param(m.w), false, infer.param(m.b), y, Mat()).val()(0, 0);
  EXPECT_EQ(a, b);
}

// The row loop and the blocked bias sum give the same numbers for any thread count. The products around
// them need not (OpenBLAS's differ in the last bits between one and two threads), so H = 2 keeps the forward
// and input-gradient products in Eigen's serial kernel on both thread counts, and the weight gradient, whose
// route may differ, is not compared.
TEST(LinearCrossEntropy, SameNumbersOnOneAndTwoThreads) {
  const int saved = num_threads();
  Evaluated runs[2];
  for (int t : {1, 2}) {
    set_num_threads(t);
    ASSERT_EQ(gemm_route(kN, kV, 2), GemmRoute::kEigen);
    ASSERT_EQ(gemm_route(kN, 2, kV), GemmRoute::kEigen);
    ParamStore store;
    Param& x = rand_param(store, "x", kN, 2);
    Param& w = rand_param(store, "W", 2, kV);
    Param& b = rand_param(store, "b", 1, kV);
    const Ids y = targets();
    runs[t - 1] = evaluate(store, [&](Graph& g) {
      return linear_cross_entropy(g.param(x), g.param(w), false, g.param(b), y, mask_with_zeros(), 0.1);
    });
  }
  set_num_threads(saved);
  EXPECT_EQ(runs[0].value(0, 0), runs[1].value(0, 0));
  EXPECT_TRUE(runs[0].grads[0] == runs[1].grads[0]) << "dx differs";
  EXPECT_TRUE(runs[0].grads[2] == runs[1].grads[2]) << "db differs";
}

TEST(LinearCrossEntropy, BadShapesAreClearErrors) {
  Model m(false);
  Graph g;
  const Ids y = targets();
  EXPECT_THROW(linear_cross_entropy(g.param(m.x), g.param(m.w), true, g.param(m.b), y, Mat()), Error);
  Ids bad = y;
  bad[5] = static_cast<std::int32_t>(kV);
  EXPECT_THROW(linear_cross_entropy(g.param(m.x), g.param(m.w), false, g.param(m.b), bad, Mat()), Error);
  EXPECT_THROW(linear_cross_entropy(g.param(m.x), g.param(m.w), false, g.param(m.b), y, Mat::Ones(3, 1)), Error);
}

}  // namespace
}  // namespace twin::test
