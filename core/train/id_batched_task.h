// The skeleton of a task whose training data is a list of examples (sentences, pairs, sentence pairs of a
// translation corpus): the task says how long example `id` is, how to batch and what its summed loss on a set
// of example ids is; this base owns the rest of the trainer's batch hooks once (issue 54):
//   - the epoch's batches: make_batches (core/data/batch.h) over the examples' lengths, shuffled from the
//     trainer's order_rng, so that a batch holds similar lengths;
//   - data parallelism: under mpirun every rank takes its contiguous share of each global batch
//     (dist::Shard), and the loss is divided by the GLOBAL batch's examples, so that the ranks' gradients sum
//     to the one-process gradient. A task never sees a rank.
//
// A task derives from IdBatchedTask<Itself> (CRTP: the hooks are found at compile time, none is virtual) and
// supplies, as public members (the concept IdBatchedHooks states them; a missing or misspelt one does not compile):
//   size_t train_size() const;                      // how many training examples
//   int train_length(size_t id) const;              // example id's length for the batching (tokens, characters, ...)
//   BatchingOptions train_batching() const;         // batch size, sorting window, token cap (shuffle is set here)
//   SummedLoss summed_loss(Graph& g, const std::vector<int>& ids, Rng& rng);   // the loss SUMMED over `ids`
// Rng use is unchanged from a task that did this itself: order_rng only shuffles, rng is the step's (dropout).
#pragma once
#include <concepts>
#include <cstddef>
#include <vector>

#include "data/batch.h"
#include "ops/ops.h"
#include "train/task.h"

namespace twin {

// A batch's training loss before the division by the global batch: `total` a [1,1] Var summed over the
// examples given, `units` what a progress line's words/s counts (tokens, characters, pairs).
struct SummedLoss {
  Var total;
  double units = 0;
};

template <class T>
concept IdBatchedHooks = requires(T& t, const T& c, Graph& g, Rng& rng, const std::vector<int>& ids) {
  { c.train_size() } -> std::convertible_to<size_t>;
  { c.train_length(size_t{0}) } -> std::convertible_to<int>;
  { c.train_batching() } -> std::same_as<BatchingOptions>;
  { t.summed_loss(g, ids, rng) } -> std::same_as<SummedLoss>;
};

template <class Derived>
class IdBatchedTask : public TaskDefaults {
 public:
  void set_shard(const dist::Shard& s) { shard_ = s; }

  size_t begin_epoch(int /*epoch*/, Rng& order_rng) {
    static_assert(IdBatchedHooks<Derived>, "an IdBatchedTask supplies train_size, train_length, train_batching and summed_loss");
    const Derived& d = static_cast<const Derived&>(*this);
    if (lengths_.size() != d.train_size()) {   // the training data is fixed: its lengths are taken once
      lengths_.resize(d.train_size());
      for (size_t i = 0; i < lengths_.size(); ++i) lengths_[i] = d.train_length(i);
    }
    BatchingOptions o = d.train_batching();
    o.shuffle = true;
    batches_ = make_batches(lengths_, o, order_rng);
    return batches_.size();
  }

  LossOut loss(Graph& g, size_t batch, Rng& rng) {
    const std::vector<int> mine = shard_.items(batches_[batch]);
    if (mine.empty()) return {};   // a rank with no share this step
    const double B = static_cast<double>(batches_[batch].size());
    const SummedLoss s = static_cast<Derived&>(*this).summed_loss(g, mine, rng);
    return {scale(s.total, static_cast<Real>(1.0 / B)), s.total.val()(0, 0), s.units};
  }

 private:
  dist::Shard shard_;                          // one process: everything
  std::vector<int> lengths_;                   // train_length of every training example
  std::vector<std::vector<int>> batches_;      // this epoch's global batches of example ids
};

}  // namespace twin
