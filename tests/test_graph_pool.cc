// The graph's buffer pool (Graph::take/give/clear), gradient adoption (add_grad) and the deferred recurrent
// weight gradient (defer_weight_grad): reuse, bounded growth, and results equal to the straightforward way.
#include <gtest/gtest.h>

#include "graph/init.h"
#include "lm_model.h"
#include "ops/ops.h"

namespace twin {
namespace {

TEST(GraphPool, ClearRecyclesBuffersForTheNextBatch) {
  Graph g;
  Var a = g.constant(g.take(3, 4));
  const Real* data = a.val().data();
  g.clear();
  EXPECT_EQ(g.pool_stats().recycled, 1);
  Mat m = g.take(4, 3);   // same element count, other shape: the same allocation
  EXPECT_EQ(m.data(), data);
  EXPECT_EQ(m.rows(), 4);
  EXPECT_EQ(m.cols(), 3);
  EXPECT_EQ(g.pool_stats().misses, 0);
  Mat z = g.take_zero(2, 2);
  EXPECT_EQ(g.pool_stats().misses, 1);
  EXPECT_EQ(z, Mat::Zero(2, 2));
}

TEST(GraphPool, BuffersLeftUntakenForAWholeBatchAreFreed) {
  Graph g;
  g.constant(g.take(3, 4));
  g.clear();                 // pooled
  g.clear();                 // a batch that took nothing: freed
  EXPECT_EQ(g.pool_stats().recycled, 0);
  (void)g.take(3, 4);
  EXPECT_EQ(g.pool_stats().misses, 1);
}

TEST(GraphPool, ScratchGivenBackSurvivesIntoTheNextBatch) {
  Graph g;
  Mat s = g.take(5, 5);
  g.give(std::move(s));
  g.clear();
  (void)g.take(5, 5);
  EXPECT_EQ(g.pool_stats().misses, 0);
}

TEST(GraphPool, AddGradAdoptsAnUntouchedGradientAndAddsOtherwise) {
  ParamStore store;
  Param& p = store.add("p", 2, 3, init::constant(1));
  Graph g;
  Var y = scale(g.param(p), 2);
  Mat d = Mat::Constant(2, 3, 0.5);
  const Real* data = d.data();
  g.add_grad(y.id, std::move(d));
  EXPECT_EQ(g.grad(y.id).data(), data);   // adopted, not copied
  g.add_grad(y.id, Mat::Constant(2, 3, 0.25));
  EXPECT_EQ(g.grad(y.id), Mat::Constant(2, 3, 0.75));
  g.add_grad(g.param(p).id, Mat::Constant(2, 3, 1));   // a parameter: always accumulates into p.grad
  EXPECT_EQ(p.grad, Mat::Constant(2, 3, 1));
  EXPECT_THROW(g.add_grad(y.id, Mat::Zero(3, 2)), Error);
}

TEST(GraphPool, GradOutIsFreshOnlyAtTheFirstTouchAndNeverForAParameter) {
  ParamStore store;
  Param& p = store.add("p", 2, 3, init::constant(1));
  Graph g;
  g.poison_takes();
  Var y = scale(g.param(p), 2);
  const Graph::GradOut first = g.grad_out(y.id);
  EXPECT_TRUE(first.fresh);
  EXPECT_EQ(first.beta(), Real(0));
  EXPECT_TRUE(first.m.array().isNaN().all());   // unspecified contents: the caller assigns
  first.m.setConstant(0.5);
  const Graph::GradOut second = g.grad_out(y.id);
  EXPECT_FALSE(second.fresh);
  EXPECT_EQ(second.beta(), Real(1));
  EXPECT_EQ(second.m.data(), first.m.data());
  g.accumulate(y.id, Mat::Constant(2, 3, 0.25));
  EXPECT_EQ(g.grad(y.id), Mat::Constant(2, 3, 0.75));
  Var z = scale(g.param(p), 3);
  g.accumulate(z.id, Mat::Constant(2, 3, 0.125));   // a first touch assigns: no NaN survives
  EXPECT_EQ(g.grad(z.id), Mat::Constant(2, 3, 0.125));
  p.grad.setConstant(1);
  EXPECT_FALSE(g.grad_out(g.param(p).id).fresh);   // a parameter's gradient holds earlier batches' sums
  g.accumulate(g.param(p).id, Mat::Constant(2, 3, 1));
  EXPECT_EQ(p.grad, Mat::Constant(2, 3, 2));
}

// Every op on this chain writes its input's gradient at the first touch by assignment: backward() zero-fills the
// loss's 1x1 seed and nothing else (before grad_out, every intermediate gradient was zero-filled first).
TEST(GraphPool, BackwardOfAnMlpZeroFillsOnlyTheLossSeed) {
  ParamStore store;
  Param& w1 = store.add("w1", 3, 5, init::uniform(0.5));
  Param& b1 = store.add("b1", 1, 5, init::uniform(0.5));
  Param& w2 = store.add("w2", 5, 4, init::uniform(0.5));
  Graph g;
  Var x = g.constant(Mat::Constant(4, 3, 0.25));
  Var h = tanh(affine(x, g.param(w1), g.param(b1)));
  Var y = softmax_rows(matmul(h, g.param(w2)));
  Var loss = sum_all(slice_cols(y, 1, 2) * sigmoid(slice_cols(h, 0, 2)));
  const long before = g.pool_stats().zero_filled;
  g.backward(loss);
  EXPECT_EQ(g.pool_stats().zero_filled - before, 1);
  EXPECT_GT(w1.grad.norm(), 0);
}

TEST(GraphPool, GradOutOfAReleasedGradientThrows) {
  ParamStore store;
  Param& p = store.add("p", 2, 2, init::constant(1));
  Graph g;
  Var h = scale(g.param(p), 2);
  Var loss = sum_all(h);
  g.backward(loss);
  EXPECT_THROW(g.grad_out(h.id), Error);
}

// h_t = tanh(x_t + h_{t-1} U): U's gradient, accumulated by one product at the end of backward(), equals
// Σ_t h_{t-1}ᵀ dq_t summed step by step from the per-step gradients the graph kept.
TEST(DeferredWeightGrad, EqualsTheSumOfPerStepProducts) {
  const Index B = 3, H = 5, T = 6;
  ParamStore store(11);
  Param& u = store.add("U", H, H, init::uniform(0.5));
  Param& x = store.add("x", T * B, H, init::uniform(1.0));
  Graph g;
  Var h = g.constant(Mat::Zero(B, H));
  std::vector<Var> hs_prev, qs;
  Var total = g.constant(Mat::Zero(1, 1));
  for (Index t = 0; t < T; ++t) {
    hs_prev.push_back(h);
    Var q = matmul(h, g.param(u));
    qs.push_back(q);
    h = tanh(slice_rows(g.param(x), t * B, B) + q);
    total = total + sum_all(h * h);
  }
  g.backward(total);
  Mat expect = Mat::Zero(H, H);
  for (Index t = 0; t < T; ++t) expect += hs_prev[t].val().transpose() * g.grad(qs[t].id);
  EXPECT_LT((u.grad - expect).cwiseAbs().maxCoeff(), 1e-5);
  EXPECT_GT(u.grad.cwiseAbs().maxCoeff(), 0);
}

// A training step of the PTB model on a reused graph: from the third step on, every buffer comes from the
// pool (no matrix is allocated), for every cell with a fused kernel and the composed GRU.
TEST(GraphPool, SteadyStateLmTrainingStepAllocatesNoMatrix) {
  for (const char* cell : {"lstm", "gru", "atr", "lrn", "ran", "sru"}) {
    ParamStore store(5);
    lm::LmModelConfig mc;
    mc.embed = 8;
    mc.layers = 2;
    mc.cell.type = cell;
    mc.cell.hidden = 8;
    lm::LmModel model(mc, 20, store);
    IdMat in(4, 3), tg(4, 3);
    for (Index i = 0; i < in.size(); ++i) {
      in.data()[i] = static_cast<std::int32_t>(i % 20);
      tg.data()[i] = static_cast<std::int32_t>((i * 7) % 20);
    }
    lm::LmState state;
    Rng rng(1);
    Graph g;
    long recycled = -1;
    for (int step = 0; step < 4; ++step) {
      g.clear();
      if (step == 3) {
        EXPECT_EQ(g.pool_stats().recycled, recycled) << cell << ": the pool grew";
      }
      recycled = g.pool_stats().recycled;
      g.backward(model.loss(g, in, tg, state, rng));
      store.zero_grad();
      if (step >= 2) {
        EXPECT_EQ(g.pool_stats().misses, 0) << cell << " step " << step;
        EXPECT_GT(g.pool_stats().takes, 0);
      }
    }
  }
}

}  // namespace
}  // namespace twin
