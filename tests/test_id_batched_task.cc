// core/train/id_batched_task.h: the batches and the data-parallel shares it owns for example-list tasks.
// A toy task whose example i has length len[i] and loss w * x_i (one weight): the epoch's batches cover every
// example once, each rank's share is a contiguous block, and the ranks' losses sum to the one-process loss
// (divided by the GLOBAL batch's examples).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "graph/init.h"
#include "ops/ops.h"
#include "train/id_batched_task.h"

namespace twin {
namespace {

class ToyIdTask : public IdBatchedTask<ToyIdTask> {
 public:
  ToyIdTask() : store_(1) {
    for (int i = 0; i < 23; ++i) len_.push_back(1 + (i * 7) % 11);
    w_ = &store_.add("toy/w", 1, 1, init::constant(0.5f));
  }
  ParamStore& params() { return store_; }
  Metrics evaluate(Split) { return {}; }

  size_t train_size() const { return len_.size(); }
  int train_length(size_t id) const { return len_[id]; }
  BatchingOptions train_batching() const { return {.batch_size = 5, .maxi_batch = 2}; }
  SummedLoss summed_loss(Graph& g, const std::vector<int>& ids, Rng&) {
    seen.push_back(ids);
    Mat x(static_cast<Index>(ids.size()), 1);
    for (size_t k = 0; k < ids.size(); ++k) x(static_cast<Index>(k), 0) = static_cast<Real>(ids[k] + 1);
    return {sum_all(matmul(g.constant(x), g.param(*w_))), static_cast<double>(ids.size()) * 10};
  }

  std::vector<int> len_;
  std::vector<std::vector<int>> seen;   // the ids summed_loss was given, in call order

 private:
  ParamStore store_;
  Param* w_ = nullptr;
};

static_assert(TrainerTask<ToyIdTask>);

TEST(IdBatchedTask, EpochBatchesAreMakeBatchesOfTheLengthsShuffled) {
  ToyIdTask t;
  Rng a(9), b(9);
  const size_t n = t.begin_epoch(1, a);
  std::vector<int> lengths = t.len_;
  const auto expect = make_batches(lengths, {.batch_size = 5, .maxi_batch = 2, .shuffle = true}, b);
  ASSERT_EQ(n, expect.size());
  std::vector<int> all;
  Rng step(0);
  for (size_t k = 0; k < n; ++k) {
    Graph g(Mode::kTrain);
    t.loss(g, k, step);
    EXPECT_EQ(t.seen.back(), expect[k]) << "batch " << k;
    all.insert(all.end(), expect[k].begin(), expect[k].end());
  }
  std::sort(all.begin(), all.end());
  std::vector<int> every(t.len_.size());
  std::iota(every.begin(), every.end(), 0);
  EXPECT_EQ(all, every);
  // The order rng advanced like make_batches' own (the next epoch differs, and equally for both).
  EXPECT_EQ(a.next_u64(), b.next_u64());
}

TEST(IdBatchedTask, RanksTakeContiguousSharesAndDivideByTheGlobalBatch) {
  ToyIdTask one;
  Rng r1(4);
  const size_t n = one.begin_epoch(1, r1);
  for (int ranks : {2, 3, 7}) {
    std::vector<ToyIdTask> shard(static_cast<size_t>(ranks));
    for (int r = 0; r < ranks; ++r) {
      shard[static_cast<size_t>(r)].set_shard({.rank = r, .size = ranks});
      Rng rr(4);
      ASSERT_EQ(shard[static_cast<size_t>(r)].begin_epoch(1, rr), n);
    }
    for (size_t k = 0; k < n; ++k) {
      Graph g(Mode::kTrain);
      Rng step(0);
      const LossOut whole = one.loss(g, k, step);
      const std::vector<int>& batch = one.seen.back();
      double sum = 0, units = 0;
      std::vector<int> joined;
      for (int r = 0; r < ranks; ++r) {
        ToyIdTask& s = shard[static_cast<size_t>(r)];
        const size_t calls = s.seen.size();
        const LossOut part = s.loss(g, k, step);
        if (s.seen.size() == calls) {   // no share: an empty LossOut, summed_loss not called
          EXPECT_FALSE(part.loss.valid());
          EXPECT_EQ(part.units, 0);
          continue;
        }
        joined.insert(joined.end(), s.seen.back().begin(), s.seen.back().end());
        sum += part.loss.val()(0, 0);
        units += part.units;
      }
      EXPECT_EQ(joined, batch) << ranks << " ranks, batch " << k << ": the shares in rank order are the batch";
      EXPECT_NEAR(sum, whole.loss.val()(0, 0), 1e-5) << ranks << " ranks, batch " << k;
      EXPECT_EQ(units, whole.units);
      // The one-process loss is the mean over the batch: sum of w * (id + 1) / B.
      double expect = 0;
      for (int id : batch) expect += 0.5 * (id + 1);
      EXPECT_NEAR(whole.loss.val()(0, 0), expect / static_cast<double>(batch.size()), 1e-5);
      EXPECT_NEAR(whole.loss_sum, expect, 1e-4);
    }
  }
}

}  // namespace
}  // namespace twin
