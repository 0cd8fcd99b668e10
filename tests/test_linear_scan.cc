// The fused scan of the gated linear recurrences (ops/linear_scan.h, rnn/linear_recurrence.h) in the float build:
// every cell that uses it equal to the step loop it replaced (linear_scan_compare.h), SRU equal to its own fused
// per-step kernel to float rounding, QRNN's width-2 filter equal to the reference code's formulation (a width-1 QRNN
// reading [x_t, x_{t-1}]), and the threaded kernel equal to the single-threaded one bit for bit.
#include <gtest/gtest.h>

#include "base/threads.h"
#include "cell_variants.h"
#include "linear_scan_compare.h"
#include "ops/ops.h"
#include "rnn/cell_factory.h"
#include "rnn/rnn.h"
#include "test_util.h"

// Its own namespace: the unity build compiles this file with its neighbours.
namespace twin::test::linear_scan_test {
namespace {

constexpr int kH = 4;

TEST(LinearScanCells, EveryScanCellEqualsItsStepLoop) { EXPECT_GE(expect_every_scan_cell_equals_steps(2e-6), 10); }

// SRU ran step by step through its fused kernel sru_cell before the scan existed. The scan is not bit-equal to it,
// for two reasons of float rounding: Eigen computes exp and tanh in SIMD packets with a scalar remainder, and which
// elements fall in the remainder depends on the matrix's shape ([B, 2H] blocks per step there, [T·B, H] matrices
// here); and sru_cell's h = x_h + r ⊙ (g(c) − x_h) is one expression the compiler contracts into a fused multiply-add,
// where the scan's readout is three rounded ops. Each is a last-bit difference; here the run equals the step loop
// within 1e-6 (values and gradients), at a hidden size that is not a multiple of the SIMD width (H = 4) and one that
// is (H = 16).
TEST(LinearScanCells, SruEqualsItsFusedStepsToRounding) {
  for (const char* name : {"sru", "sru_identity"}) {
    const CellConfig cfg = cell_variant(name, kH);
    for (int hidden : {kH, 16}) {
      for (int input : {3, hidden}) {   // I != H: x_h = x W_h; I == H: x_h = x
        for (Dir dir : {Dir::kForward, Dir::kBackward}) {
          SCOPED_TRACE(std::string(name) + " H=" + std::to_string(hidden) + " I=" + std::to_string(input) +
                       (dir == Dir::kForward ? " fwd" : " bwd"));
          constexpr Index kT = 5, kB = 3;
          ParamStore store(8);
          CellConfig c = cfg;
          c.hidden = hidden;
          c.init_scale = 0.5;
          auto cell = make_cell(c, input, store, "sru");
          Param& x = rand_param(store, "x", kT * kB, input);
          Param& h0 = rand_param(store, "h0", kB, hidden);
          Param& c0 = rand_param(store, "c0", kB, hidden);
          const Mat mask = time_major_mask(kT, {5, 2, 4});
          auto init = [&](Graph& g) { return CellState{g.param(h0), g.param(c0)}; };
          const auto whole =
              evaluate(store, [&](Graph& g) { return run_whole(*cell, g.param(x), mask, kB, dir, init(g)); });
          const auto steps =
              evaluate(store, [&](Graph& g) { return run_by_steps(*cell, g.param(x), mask, kB, dir, init(g)); });
          EXPECT_LE((whole.value - steps.value).cwiseAbs().maxCoeff(), 1e-6);
          ASSERT_EQ(whole.grads.size(), steps.grads.size());
          for (size_t i = 0; i < whole.grads.size(); ++i)
            EXPECT_LE((whole.grads[i] - steps.grads[i]).cwiseAbs().maxCoeff(), 1e-5) << store.all()[i]->name;
        }
      }
    }
  }
}

// Width 2 is the reference code's Linear over [x_t, x_{t-1}]: a width-1 QRNN with input [x_t, x_{t∓1}] (zero at the
// sequence's edge and on padding) and W' = [W⁰; W¹] must give the same h, c and input gradients.
TEST(LinearScanCells, QrnnWidth2IsWidth1OverTheNeighbourConcatenated) {
  constexpr Index kT = 4, kB = 2;
  constexpr int kI = 3;
  CellConfig c2;
  c2.type = "qrnn";
  c2.hidden = kH;
  c2.filter_width = 2;
  c2.init_scale = 0.5;
  CellConfig c1 = c2;
  c1.filter_width = 1;
  const std::vector<Index> lengths{4, 3};
  const Mat mask = time_major_mask(kT, lengths), xv = uniform_mat(kT * kB, kI, 3);
  for (Dir dir : {Dir::kForward, Dir::kBackward}) {
    SCOPED_TRACE(dir == Dir::kForward ? "forward" : "backward");
    ParamStore s2(1), s1(2);
    auto q2 = make_cell(c2, kI, s2, "q");
    auto q1 = make_cell(c1, 2 * kI, s1, "q");
    const Mat& w = s2.get("q/qrnn/W").value;   // [I, 6H] = [W⁰ W¹]
    Mat stacked(2 * kI, 3 * kH);
    stacked << w.leftCols(3 * kH), w.rightCols(3 * kH);
    s1.get("q/qrnn/W").value = stacked;
    s1.get("q/qrnn/b").value = s2.get("q/qrnn/b").value;
    // [x_t, x_{t-1}] forward, [x_t, x_{t+1}] backward; a neighbour outside the sequence is zero.
    Mat xx = Mat::Zero(kT * kB, 2 * kI);
    for (Index t = 0; t < kT; ++t)
      for (Index b = 0; b < kB; ++b) {
        xx.block(t * kB + b, 0, 1, kI) = xv.row(t * kB + b);
        const Index n = dir == Dir::kForward ? t - 1 : t + 1;
        if (n >= 0 && n < lengths[static_cast<size_t>(b)]) xx.block(t * kB + b, kI, 1, kI) = xv.row(n * kB + b);
      }
    Graph g(Mode::kInfer);
    SeqOut a = run_rnn(*q2, g.constant(xv), mask, kB, dir);
    SeqOut b = run_rnn(*q1, g.constant(xx), mask, kB, dir);
    EXPECT_LT(max_abs_diff(a.h_all.val(), b.h_all.val()), 1e-6);
    EXPECT_LT(max_abs_diff(a.last.c.val(), b.last.c.val()), 1e-6);
    EXPECT_GT(a.h_all.val().cwiseAbs().maxCoeff(), 1e-2);
    // And the width-1 cell really differs when the neighbour is left out (the comparison discriminates).
    Mat no_neighbour = xx;
    no_neighbour.rightCols(kI).setZero();
    EXPECT_GT(max_abs_diff(a.h_all.val(), run_rnn(*q1, g.constant(no_neighbour), mask, kB, dir).h_all.val()), 1e-3);
  }
}

TEST(LinearScanCells, QrnnWidth2RefusesToStep) {
  CellConfig c;
  c.type = "qrnn";
  c.hidden = kH;
  c.filter_width = 2;
  ParamStore store;
  auto cell = make_cell(c, 3, store, "q");
  Graph g(Mode::kInfer);
  Var xp = cell->project_inputs(g.constant(uniform_mat(2, 3, 1)));
  EXPECT_EQ(xp.cols(), 6 * kH);
  EXPECT_THROW(cell->step(xp, cell->zero_state(g, 2)), Error);
}

// Each thread owns whole (sequence, column block) tiles, so the result cannot depend on the thread count.
TEST(LinearScan, ThreadedEqualsOneThreadBitForBit) {
  constexpr Index kT = 20, kB = 8, kHid = 300;   // T·B·H = 48000: above the kernel's threading threshold
  const Mat a = uniform_mat(kT * kB, kHid, 1), b = uniform_mat(kT * kB, kHid, 2), s0 = uniform_mat(kB, kHid, 3);
  const Mat mask = time_major_mask(kT, {20, 3, 17, 20, 1, 9, 20, 12});
  auto run = [&](int threads) {
    set_num_threads(threads);
    ParamStore store;
    Param& pa = store.add("a", kT * kB, kHid, [&](Mat& m, Rng&) { m = a; });
    Param& pb = store.add("b", kT * kB, kHid, [&](Mat& m, Rng&) { m = b; });
    Param& ps = store.add("s0", kB, kHid, [&](Mat& m, Rng&) { m = s0; });
    return evaluate(store, [&](Graph& g) {
      Var s = linear_scan(g.param(pa), g.param(pb), g.param(ps), mask, true, ScanForm::kConvex);
      return carry_steps(s, g.param(ps), mask, true);
    });
  };
  const int before = num_threads();
  const Evaluated one = run(1), two = run(2);
  set_num_threads(before);
  EXPECT_EQ(one.value, two.value);
  for (size_t i = 0; i < one.grads.size(); ++i) EXPECT_EQ(one.grads[i], two.grads[i]) << i;
}

}  // namespace
}  // namespace twin::test::linear_scan_test
