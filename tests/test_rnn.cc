// run_birnn and run_stacked (float build): padding in both directions equals unpadded runs of each
// sequence alone, they agree with hand-chained run_rnn calls, the carried state continues a sequence
// exactly (truncated BPTT), and dropout between layers follows the graph mode.
#include <gtest/gtest.h>

#include "ops/ops.h"
#include "rnn/cell_factory.h"
#include "rnn/stacked.h"
#include "test_util.h"

namespace twin {
namespace {

using test::max_abs_diff;
using test::sequence_rows;
using test::time_major_mask;
using test::uniform_mat;

constexpr int kI = 3, kH = 2;
constexpr Index kT = 5, kB = 3;

std::unique_ptr<Cell> cell(const std::string& type, int input_dim, ParamStore& store, const std::string& scope) {
  CellConfig cfg;
  cfg.type = type;
  cfg.hidden = kH;
  cfg.init_scale = 0.5;
  return make_cell(cfg, input_dim, store, scope);
}

const std::vector<Index> kLengths{5, 2, 3};

TEST(Birnn, PaddedBatchEqualsEachSequenceAlone) {
  ParamStore store;
  auto fwd = cell("atr", kI, store, "enc/fwd");
  auto bwd = cell("lstm", kI, store, "enc/bwd");
  const Mat xv = uniform_mat(kT * kB, kI, 1);
  Graph g(Mode::kInfer);
  BiSeqOut batch = run_birnn(*fwd, *bwd, g.constant(xv), time_major_mask(kT, kLengths), kB);
  ASSERT_EQ(batch.h_all.cols(), 2 * kH);
  for (Index b = 0; b < kB; ++b) {
    const Index n = kLengths[static_cast<size_t>(b)];
    BiSeqOut alone = run_birnn(*fwd, *bwd, g.constant(sequence_rows(xv, b, kB, n)), Mat(), 1);
    EXPECT_LT(max_abs_diff(sequence_rows(batch.h_all.val(), b, kB, n), alone.h_all.val()), 1e-6) << b;
    EXPECT_LT(max_abs_diff(batch.fwd.h.val().row(b), alone.fwd.h.val()), 1e-6) << b;
    EXPECT_LT(max_abs_diff(batch.bwd.h.val().row(b), alone.bwd.h.val()), 1e-6) << b;
    EXPECT_LT(max_abs_diff(batch.bwd.c.val().row(b), alone.bwd.c.val()), 1e-6) << b;
    // The backward half at a sequence's first position is its backward final state.
    EXPECT_LT(max_abs_diff(batch.h_all.val().block(b, kH, 1, kH), alone.bwd.h.val()), 1e-6) << b;
  }
}

TEST(Birnn, HalvesAreTheTwoDirectionalRuns) {
  ParamStore store;
  auto fwd = cell("gru", kI, store, "f");
  auto bwd = cell("gru", kI, store, "b");
  Graph g(Mode::kInfer);
  Var x = g.constant(uniform_mat(kT * kB, kI, 2));
  const Mat mask = time_major_mask(kT, kLengths);
  // Copies: a Var's value is a reference into the graph's node storage, which moves as the graph grows.
  const Mat bi = run_birnn(*fwd, *bwd, x, mask, kB).h_all.val();
  const Mat f = run_rnn(*fwd, x, mask, kB, Dir::kForward).h_all.val();
  const Mat b = run_rnn(*bwd, x, mask, kB, Dir::kBackward).h_all.val();
  EXPECT_LT(max_abs_diff(bi.leftCols(kH), f), 1e-12);
  EXPECT_LT(max_abs_diff(bi.rightCols(kH), b), 1e-12);
}

TEST(Stacked, EqualsHandChainedRunsAndPaddingInBothDirections) {
  ParamStore store;
  auto l0 = cell("lstm", kI, store, "l0");
  auto l1 = cell("lrn", kH, store, "l1");
  auto l2 = cell("atr", kH, store, "l2");
  const std::vector<const Cell*> layers{l0.get(), l1.get(), l2.get()};
  const Mat xv = uniform_mat(kT * kB, kI, 3);
  const Mat mask = time_major_mask(kT, kLengths);
  for (Dir dir : {Dir::kForward, Dir::kBackward}) {
    SCOPED_TRACE(dir == Dir::kForward ? "forward" : "backward");
    Graph g(Mode::kInfer);
    StackedOut st = run_stacked(layers, g.constant(xv), mask, kB, dir);
    ASSERT_EQ(st.last.size(), 3u);
    SeqOut a = run_rnn(*l0, g.constant(xv), mask, kB, dir);
    SeqOut b = run_rnn(*l1, a.h_all, mask, kB, dir);
    SeqOut c = run_rnn(*l2, b.h_all, mask, kB, dir);
    EXPECT_LT(max_abs_diff(st.h_all.val(), c.h_all.val()), 1e-12);
    EXPECT_LT(max_abs_diff(st.last[0].c.val(), a.last.c.val()), 1e-12);
    EXPECT_LT(max_abs_diff(st.last[1].h.val(), b.last.h.val()), 1e-12);
    for (Index s = 0; s < kB; ++s) {
      const Index n = kLengths[static_cast<size_t>(s)];
      StackedOut alone = run_stacked(layers, g.constant(sequence_rows(xv, s, kB, n)), Mat(), 1, dir);
      EXPECT_LT(max_abs_diff(sequence_rows(st.h_all.val(), s, kB, n), alone.h_all.val()), 1e-6) << s;
      for (size_t l = 0; l < layers.size(); ++l)
        EXPECT_LT(max_abs_diff(st.last[l].h.val().row(s), alone.last[l].h.val()), 1e-6) << s << " layer " << l;
    }
  }
}

TEST(Stacked, CarriedStateContinuesTheSequence) {
  // Truncated BPTT: T steps at once equal T1 steps, then T - T1 steps started from the carried states.
  ParamStore store;
  auto l0 = cell("ran", kI, store, "l0");
  auto l1 = cell("gru", kH, store, "l1");
  const std::vector<const Cell*> layers{l0.get(), l1.get()};
  const Mat xv = uniform_mat(kT * kB, kI, 4);
  const Index t1 = 2;
  Graph g(Mode::kInfer);
  StackedOut whole = run_stacked(layers, g.constant(xv), Mat(), kB, Dir::kForward);
  StackedOut head = run_stacked(layers, g.constant(xv.topRows(t1 * kB)), Mat(), kB, Dir::kForward);
  StackedOut tail = run_stacked(layers, g.constant(xv.bottomRows((kT - t1) * kB)), Mat(), kB, Dir::kForward,
                                head.last);
  EXPECT_LT(max_abs_diff(whole.h_all.val().bottomRows((kT - t1) * kB), tail.h_all.val()), 1e-6);
  EXPECT_LT(max_abs_diff(whole.last[0].c.val(), tail.last[0].c.val()), 1e-6);
  EXPECT_LT(max_abs_diff(whole.last[1].h.val(), tail.last[1].h.val()), 1e-6);
}

TEST(Stacked, DropoutOnlyBetweenLayersAndOnlyWhenTraining) {
  ParamStore store;
  auto l0 = cell("atr", kI, store, "l0");
  auto l1 = cell("atr", kH, store, "l1");
  const std::vector<const Cell*> layers{l0.get(), l1.get()};
  const Mat xv = uniform_mat(kT * kB, kI, 5);
  Graph infer(Mode::kInfer);
  Rng rng(1);
  const Mat plain = run_stacked(layers, infer.constant(xv), Mat(), kB, Dir::kForward).h_all.val();
  EXPECT_LT(max_abs_diff(run_stacked(layers, infer.constant(xv), Mat(), kB, Dir::kForward, {}, Real(0.5), rng)
                             .h_all.val(),
                         plain),
            1e-12);
  Graph train(Mode::kTrain);
  Rng r1(7), r2(7);
  const Mat d1 = run_stacked(layers, train.constant(xv), Mat(), kB, Dir::kForward, {}, Real(0.5), r1).h_all.val();
  const Mat d2 = run_stacked(layers, train.constant(xv), Mat(), kB, Dir::kForward, {}, Real(0.5), r2).h_all.val();
  EXPECT_GT(max_abs_diff(d1, plain), 1e-4);   // dropout changed the second layer's input
  EXPECT_LT(max_abs_diff(d1, d2), 1e-12);     // and is reproducible from the seed
  // A single layer has nothing between layers: dropout must not touch it.
  Rng r3(7);
  const Mat one = run_stacked({l0.get()}, train.constant(xv), Mat(), kB, Dir::kForward, {}, Real(0.5), r3).h_all.val();
  EXPECT_LT(max_abs_diff(one, run_rnn(*l0, train.constant(xv), Mat(), kB, Dir::kForward).h_all.val()), 1e-12);
}

TEST(Stacked, Errors) {
  ParamStore store;
  auto l0 = cell("atr", kI, store, "l0");
  Graph g(Mode::kInfer);
  Var x = g.constant(uniform_mat(kT * kB, kI, 6));
  Rng rng(1);
  EXPECT_THROW(run_stacked({}, x, Mat(), kB, Dir::kForward), Error);
  EXPECT_THROW(run_stacked({l0.get()}, x, Mat(), kB, Dir::kForward, {CellState{}, CellState{}}), Error);
  EXPECT_THROW(run_stacked({l0.get()}, x, Mat(), kB, Dir::kForward, {}, Real(1), rng), Error);
  auto wide = cell("atr", kI, store, "wide");   // layer 1 must read H = 2 columns, not I = 3
  EXPECT_THROW(run_stacked({l0.get(), wide.get()}, x, Mat(), kB, Dir::kForward), Error);
}

}  // namespace
}  // namespace twin
