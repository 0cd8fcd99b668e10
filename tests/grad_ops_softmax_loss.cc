// Gradient checks for the softmax family, the fused cross-entropy losses and pick.
#include <gtest/gtest.h>

#include "gradcheck.h"
#include "ops/ops.h"

namespace twin::test {

namespace {
// 3x4 mask with one fully-masked row (row 1) and a single survivor in row 2.
Mat attention_mask() {
  Mat m(3, 4);
  m << 1, 0, 1, 1,
      0, 0, 0, 0,
      0, 0, 1, 0;
  return m;
}
}  // namespace

TEST(OpGrad, SoftmaxRows) {
  check_op({{3, 4}}, [](Var x) { return softmax_rows(x); });
}

TEST(OpGrad, LogSoftmaxRows) {
  check_op({{3, 4}}, [](Var x) { return log_softmax_rows(x); });
}

TEST(OpGrad, MaskedSoftmaxRowsWithFullyMaskedRow) {
  GradCheck gc;
  auto x = gc.input(3, 4);
  const Mat mask = attention_mask();
  gc.check([&](Graph& g) { return masked_softmax_rows(x.in(g), mask); });
}

TEST(OpGrad, MaskedSoftmaxRowsAllKept) {
  GradCheck gc;
  auto x = gc.input(2, 5);
  const Mat mask = Mat::Ones(2, 5);
  gc.check([&](Graph& g) { return masked_softmax_rows(x.in(g), mask); });
}

TEST(OpGrad, CrossEntropyRows) {
  GradCheck gc;
  auto x = gc.input(3, 4);
  const Ids y = {2, 0, 3};
  gc.check([&](Graph& g) { return cross_entropy_rows(x.in(g), y); });
}

TEST(OpGrad, CrossEntropyRowsLabelSmoothing) {
  GradCheck gc;
  auto x = gc.input(3, 4);
  const Ids y = {1, 1, 3};
  gc.check([&](Graph& g) { return cross_entropy_rows(x.in(g), y, 0.1); });
}

TEST(OpGrad, CrossEntropyNoMask) {
  GradCheck gc;
  auto x = gc.input(3, 4);
  const Ids y = {2, 0, 3};
  gc.check([&](Graph& g) { return cross_entropy(x.in(g), y, Mat()); });
}

TEST(OpGrad, CrossEntropyMaskWithZeros) {
  GradCheck gc;
  auto x = gc.input(4, 5);
  const Ids y = {2, 0, 4, 1};
  Mat mask(4, 1);
  mask << 1, 0, 1, 0;
  gc.check([&](Graph& g) { return cross_entropy(x.in(g), y, mask); });
}

TEST(OpGrad, CrossEntropyMaskAndLabelSmoothing) {
  GradCheck gc;
  auto x = gc.input(4, 5);
  const Ids y = {2, 0, 4, 1};
  Mat mask(4, 1);
  mask << 0, 1, 1, 0.5;   // a fractional weight too
  gc.check([&](Graph& g) { return cross_entropy(x.in(g), y, mask, 0.2); });
}

TEST(OpGrad, CrossEntropyThroughAffine) {
  // The loss as it is used: logits from an output layer, a non-trivial upstream for the input.
  GradCheck gc;
  auto h = gc.input(3, 2), w = gc.input(2, 4), b = gc.input(1, 4);
  const Ids y = {3, 3, 1};
  Mat mask(3, 1);
  mask << 1, 1, 0;
  gc.check([&](Graph& g) { return scale(cross_entropy(affine(h.in(g), w.in(g), b.in(g)), y, mask, 0.1), 0.5); });
}

TEST(OpGrad, LinearCrossEntropyWithBiasMaskAndSmoothing) {
  GradCheck gc;
  auto h = gc.input(4, 3), w = gc.input(3, 5), b = gc.input(1, 5);
  const Ids y = {4, 0, 2, 2};
  Mat mask(4, 1);
  mask << 1, 0, 0.5, 1;
  gc.check([&](Graph& g) { return scale(linear_cross_entropy(h.in(g), w.in(g), false, b.in(g), y, mask, 0.1), 0.5); });
}

TEST(OpGrad, LinearCrossEntropyVocabMajorNoBias) {
  // The tied form: W is an embedding table [V, H], logits = h Wᵀ.
  GradCheck gc;
  auto h = gc.input(3, 2), w = gc.input(5, 2);
  const Ids y = {1, 4, 0};
  gc.check([&](Graph& g) { return linear_cross_entropy(h.in(g), w.in(g), true, Var{}, y, Mat()); });
}

TEST(OpGrad, Pick) {
  GradCheck gc;
  auto x = gc.input(3, 4);
  const Ids idx = {3, 3, 0};
  gc.check([&](Graph& g) { return pick(x.in(g), idx); });
}

TEST(OpGrad, PickOfLogSoftmax) {
  GradCheck gc;
  auto x = gc.input(3, 4);
  const Ids idx = {1, 2, 0};
  gc.check([&](Graph& g) { return pick(log_softmax_rows(x.in(g)), idx); });
}

}  // namespace twin::test
