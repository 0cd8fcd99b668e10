// The gated-linear-recurrence kernel (ops/linear_scan.h) and the activations of the issue-55 cells, in double:
// finite-difference gradients (both forms, both directions, a padded batch, every input), and linear_scan /
// carry_steps equal, values and gradients, to the per-step composition they replace (run_rnn's loop before the
// kernel: the update written with +, −, ⊙ and mask_carry on padding).
#include <gtest/gtest.h>

#include "fused_compare.h"
#include "gradcheck.h"
#include "linear_scan_compare.h"
#include "ops/ops.h"
#include "test_util.h"

// Its own namespace: the unity build compiles this file with its neighbours.
namespace twin::test::linear_scan_grad {
namespace {

constexpr Index kT = 4, kB = 3, kH = 5;

Mat scan_mask() { return time_major_mask(kT, {4, 2, 3}); }   // three lengths, padding at the end of two

// Padding anywhere, not only at the end: sequence 0 has a hole at t = 1, sequence 1 starts padded. The kernels carry
// through any 0 row (run_rnn only makes right padding, but nothing in them assumes it).
Mat holey_mask() {
  Mat m = scan_mask();
  m(1 * kB + 0, 0) = 0;
  m(0 * kB + 1, 0) = 0;
  return m;
}

TEST(OpGrad, Softplus) {
  check_op({{3, 4}}, [](Var x) { return softplus(x); });
}

TEST(OpGrad, MinrnnG) {
  // g has a kink in its derivative at 0 (1 above, 1/4 below): keep the finite differences off it.
  GradCheckOptions opt;
  opt.avoid_kinks_near = 1e-3;
  check_op({{3, 4}}, [](Var x) { return minrnn_g(x); }, opt);
}

TEST(OpGrad, LinearScanBothFormsBothDirectionsPadded) {
  for (ScanForm form : {ScanForm::kAffine, ScanForm::kConvex})
    for (bool reverse : {false, true})
      for (const Mat& mask : {Mat(), scan_mask(), holey_mask()}) {
        SCOPED_TRACE(std::string(form == ScanForm::kAffine ? "affine" : "convex") + (reverse ? " reverse" : "") +
                     (mask.size() ? " padded" : ""));
        check_op({{kT * kB, kH}, {kT * kB, kH}, {kB, kH}},
                 [&](Var a, Var b, Var s0) { return linear_scan(a, b, s0, mask, reverse, form); });
      }
}

TEST(OpGrad, CarrySteps) {
  for (bool reverse : {false, true})
    for (const Mat& mask : {scan_mask(), holey_mask()})
      check_op({{kT * kB, kH}, {kB, kH}}, [&](Var x, Var y0) { return carry_steps(x, y0, mask, reverse); });
}

// The composition the kernel replaces: one step at a time, s = a ⊙ s_prev + b or b + a ⊙ (s_prev − b), and on a
// step with padding mask_carry(s, s_prev, m), as run_rnn's step loop does.
Var composed_scan(Var a, Var b, Var s0, const Mat& mask, bool reverse, ScanForm form) {
  Graph& g = *a.g;
  std::vector<Var> out(static_cast<size_t>(kT));
  Var s = s0;
  for (Index k = 0; k < kT; ++k) {
    const Index t = reverse ? kT - 1 - k : k;
    Var at = slice_rows(a, t * kB, kB), bt = slice_rows(b, t * kB, kB);
    Var next = form == ScanForm::kConvex ? bt + at * (s - bt) : at * s + bt;
    if (mask.size()) next = mask_carry(next, s, g.constant(mask.middleRows(t * kB, kB)));
    s = next;
    out[static_cast<size_t>(t)] = s;
  }
  return stack_rows(out);
}

Var composed_carry(Var x, Var y0, const Mat& mask, bool reverse) {
  Graph& g = *x.g;
  std::vector<Var> out(static_cast<size_t>(kT));
  Var y = y0;
  for (Index k = 0; k < kT; ++k) {
    const Index t = reverse ? kT - 1 - k : k;
    y = mask_carry(slice_rows(x, t * kB, kB), y, g.constant(mask.middleRows(t * kB, kB)));
    out[static_cast<size_t>(t)] = y;
  }
  return stack_rows(out);
}

TEST(OpFused, LinearScanEqualsComposedSteps) {
  for (ScanForm form : {ScanForm::kAffine, ScanForm::kConvex})
    for (bool reverse : {false, true})
      for (const Mat& mask : {Mat(), scan_mask(), holey_mask()}) {
        ParamStore store;
        Param& a = rand_param(store, "a", kT * kB, kH);
        Param& b = rand_param(store, "b", kT * kB, kH);
        Param& s0 = rand_param(store, "s0", kB, kH);
        auto fused = evaluate(store, [&](Graph& g) {
          return linear_scan(g.param(a), g.param(b), g.param(s0), mask, reverse, form);
        });
        auto comp = evaluate(store, [&](Graph& g) {
          return composed_scan(g.param(a), g.param(b), g.param(s0), mask, reverse, form);
        });
        expect_same(fused, comp, store, 1e-12);
      }
}

TEST(OpFused, CarryStepsEqualsMaskCarry) {
  // The holey mask: a step padded before sequence 1's first real one carries y0 in either direction.
  for (bool reverse : {false, true}) {
    ParamStore store;
    Param& x = rand_param(store, "x", kT * kB, kH);
    Param& y0 = rand_param(store, "y0", kB, kH);
    const Mat mask = holey_mask();
    auto fused = evaluate(store, [&](Graph& g) { return carry_steps(g.param(x), g.param(y0), mask, reverse); });
    auto comp = evaluate(store, [&](Graph& g) { return composed_carry(g.param(x), g.param(y0), mask, reverse); });
    expect_same(fused, comp, store, 1e-12);
  }
}

TEST(OpFused, LinearScanRefusesBadShapesAndMasks) {
  Graph g;
  Var a = g.constant(Mat::Ones(kT * kB, kH)), s0 = g.constant(Mat::Zero(kB, kH));
  EXPECT_THROW(linear_scan(a, g.constant(Mat::Ones(kT * kB, kH + 1)), s0, Mat(), false, ScanForm::kAffine), Error);
  // 12 rows are not T·5 rows, and s0 is one column too wide.
  EXPECT_THROW(linear_scan(a, a, g.constant(Mat::Zero(kB + 2, kH)), Mat(), false, ScanForm::kAffine), Error);
  EXPECT_THROW(linear_scan(a, a, g.constant(Mat::Zero(kB, kH + 1)), Mat(), false, ScanForm::kAffine), Error);
  Mat half = scan_mask();
  half(0, 0) = 0.5;   // the carry is exact only for 0/1
  EXPECT_THROW(linear_scan(a, a, s0, half, false, ScanForm::kAffine), Error);
  EXPECT_THROW(carry_steps(a, s0, Mat(), false), Error);
}

TEST(OpValues, SoftplusAndMinrnnGByHand) {
  Graph g;
  Mat x(1, 4);
  x << -2, 0, 0.5, 30;
  const Mat sp = softplus(g.constant(x)).val(), gx = minrnn_g(g.constant(x)).val();
  // ln(1 + e^x) and g(x) = x + 1/2 (x >= 0) or 1/(1 + e^-x), each written out.
  EXPECT_NEAR(sp(0, 0), std::log(1 + std::exp(-2.0)), 1e-15);
  EXPECT_NEAR(sp(0, 1), std::log(2.0), 1e-15);
  EXPECT_NEAR(sp(0, 3), 30 + std::log1p(std::exp(-30.0)), 1e-12);   // no overflow in e^x
  EXPECT_NEAR(gx(0, 0), 1 / (1 + std::exp(2.0)), 1e-15);
  EXPECT_EQ(gx(0, 1), 0.5);
  EXPECT_EQ(gx(0, 2), 1.0);
  EXPECT_EQ(gx(0, 3), 30.5);
}

// Every cell variant that runs through the scan: run_rnn equal to the step loop it replaced (1e-12 in double).
TEST(OpFused, EveryScanCellEqualsItsStepLoop) {
  EXPECT_GE(expect_every_scan_cell_equals_steps(1e-12), 10);   // mingru, minlstm, qrnn, hgrn, sru and variants
}

}  // namespace
}  // namespace twin::test::linear_scan_grad
