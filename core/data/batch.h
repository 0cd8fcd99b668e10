// Mini-batches of variable-length sequences, laid out time-major for run_rnn.
//
// SeqBatch for sequences "a b c" and "d e" (B = 2, T = 3), pad = 0:
//   ids  = [[a d]     mask (rows t*B + b) = [1 1 1 1 1 0]^T     flat() = a d b e c 0
//           [b e]
//           [c 0]]
// flat() is the row order of the [T*B, D] embedding lookup, so lookup(E, batch.flat()) lines up with mask.
//
// make_batches groups example indices Marian-style: shuffle all examples, take a window ("maxi-batch") of
// maxi_batch * batch_size of them, sort the window by length so each batch holds similar lengths and little
// padding, cut it into batches, and finally shuffle the batches so lengths do not arrive in order.
#pragma once
#include <cstdint>
#include <vector>

#include "base/real.h"
#include "base/rng.h"

namespace twin {

struct SeqBatch {
  IdMat ids;                 // [T, B], pad id past each sequence's end
  Mat mask;                  // [T*B, 1]: 1 for real tokens, 0 for padding
  std::vector<int> lengths;  // B

  Index steps() const { return ids.rows(); }  // T
  Index size() const { return ids.cols(); }   // B
  Index tokens() const;                       // sum of lengths (the real, unpadded tokens)
  Ids flat() const;                           // element t*B + b is ids(t, b)
};

// What a run's batches held (issue 52: sorting by length keeps padding small, a token cap bounds the largest
// batch): examples, real tokens, padded positions (B x T summed over batches) and the largest batch by positions.
struct PaddingStats {
  double examples = 0, tokens = 0, positions = 0;
  Index largest_examples = 0, largest_steps = 0;   // B and T of the batch with the most positions

  void add(const SeqBatch& b) {
    examples += static_cast<double>(b.size());
    tokens += static_cast<double>(b.tokens());
    positions += static_cast<double>(b.size() * b.steps());
    if (b.size() * b.steps() > largest_examples * largest_steps) {
      largest_examples = b.size();
      largest_steps = b.steps();
    }
  }
  // The share of padded positions that are padding: 1 - tokens / positions (0 before any batch).
  double padding_share() const { return positions > 0 ? 1.0 - tokens / positions : 0.0; }
};

// Pads to the longest sequence. Every sequence must be non-empty: an all-pad column would make masked means
// and attention divide by zero later, far from the cause.
SeqBatch pad_batch(const std::vector<Ids>& seqs, std::int32_t pad_id = 0);
// The same for the subset `index` of `seqs` (one group from make_batches), in that order.
SeqBatch pad_batch(const std::vector<Ids>& seqs, const std::vector<int>& index, std::int32_t pad_id = 0);

struct BatchingOptions {
  int batch_size = 32;         // most examples per batch (always a cap, also in token mode)
  std::int64_t max_tokens = 0;  // > 0: cut batches by padded size, B * longest <= max_tokens
  int maxi_batch = 100;        // sorting window, in batches of batch_size; <= 0 sorts all examples at once
  bool shuffle = true;         // false: keep the input order (evaluation)
  bool sort_by_length = true;  // false: no length sorting, batches are consecutive runs of the (shuffled) order
};

// Groups 0..lengths.size()-1 into batches; every index appears exactly once. With sort_by_length, indices
// inside a batch are in ascending length (ties keep the shuffled order, via a stable sort). The result depends only on `lengths`,
// `opts` and the Rng state, which advances only when opts.shuffle is true. An example longer than max_tokens
// on its own becomes a batch of one rather than being dropped (filtering by length is the caller's choice).
std::vector<std::vector<int>> make_batches(const std::vector<int>& lengths, const BatchingOptions& opts,
                                           Rng& rng);
// make_batches over a task's examples, each example's length given by `length` (tokens, characters, the
// premise and hypothesis together, ...).
template <class Example, class Length>
std::vector<std::vector<int>> batches_by_length(const std::vector<Example>& data, Length length,
                                                const BatchingOptions& opts, Rng& rng) {
  std::vector<int> lengths;
  lengths.reserve(data.size());
  for (const Example& e : data) lengths.push_back(static_cast<int>(length(e)));
  return make_batches(lengths, opts, rng);
}

// Evaluation and prediction: the input order's indices, every example sorted by length at once (least
// padding), no rng drawn; the caller writes each result back at its index, so the output keeps the input order.
// Only one batch's graph is alive at a time (the callers clear it per batch), so a batch's size, and with a
// token cap (max_tokens, BatchingConfig::eval_options) its padded positions, bound evaluation's memory.
inline BatchingOptions eval_batching(int batch_size) {
  return {.batch_size = batch_size, .maxi_batch = 0, .shuffle = false};
}
template <class Example, class Length>
std::vector<std::vector<int>> eval_batches(const std::vector<Example>& data, Length length, BatchingOptions opts) {
  opts.shuffle = false;   // the Rng below is never advanced
  Rng unused(0);
  return batches_by_length(data, length, opts, unused);
}
template <class Example, class Length>
std::vector<std::vector<int>> eval_batches(const std::vector<Example>& data, Length length, int batch_size) {
  return eval_batches(data, length, eval_batching(batch_size));
}

}  // namespace twin
