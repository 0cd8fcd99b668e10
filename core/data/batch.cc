#include "data/batch.h"

#include <algorithm>
#include <numeric>

#include "base/check.h"

namespace twin {

Index SeqBatch::tokens() const {
  return std::accumulate(lengths.begin(), lengths.end(), Index{0});
}

Ids SeqBatch::flat() const {
  // IdMat is row-major, so its storage already is time-major: row t holds step t of every sequence.
  return Ids(ids.data(), ids.data() + ids.size());
}

SeqBatch pad_batch(const std::vector<Ids>& seqs, const std::vector<int>& index, std::int32_t pad_id) {
  TW_CHECK(!index.empty(), "pad_batch: empty batch; expected at least one sequence");
  int longest = 0;
  for (std::size_t b = 0; b < index.size(); ++b) {
    const int i = index[b];
    TW_CHECK(i >= 0 && static_cast<std::size_t>(i) < seqs.size(), "pad_batch: index ", i,
             " is outside the ", seqs.size(), " sequences");
    TW_CHECK(!seqs[i].empty(), "pad_batch: sequence ", i,
             " is empty; expected length >= 1 (filter empty lines before batching)");
    longest = std::max(longest, static_cast<int>(seqs[i].size()));
  }
  const Index B = static_cast<Index>(index.size()), T = longest;
  SeqBatch batch;
  batch.ids = IdMat::Constant(T, B, pad_id);
  batch.mask = Mat::Zero(T * B, 1);
  batch.lengths.resize(index.size());
  for (Index b = 0; b < B; ++b) {
    const Ids& s = seqs[index[b]];
    batch.lengths[b] = static_cast<int>(s.size());
    for (Index t = 0; t < static_cast<Index>(s.size()); ++t) {
      batch.ids(t, b) = s[t];
      batch.mask(t * B + b, 0) = 1;
    }
  }
  return batch;
}

SeqBatch pad_batch(const std::vector<Ids>& seqs, std::int32_t pad_id) {
  std::vector<int> all(seqs.size());
  std::iota(all.begin(), all.end(), 0);
  return pad_batch(seqs, all, pad_id);
}

std::vector<std::vector<int>> make_batches(const std::vector<int>& lengths, const BatchingOptions& opts,
                                           Rng& rng) {
  TW_CHECK(opts.batch_size >= 1, "batch_size is ", opts.batch_size, "; expected >= 1");
  TW_CHECK(opts.max_tokens >= 0, "max_tokens is ", opts.max_tokens, "; expected >= 0 (0 = batch by examples)");
  for (std::size_t i = 0; i < lengths.size(); ++i)
    TW_CHECK(lengths[i] >= 0, "make_batches: length of example ", i, " is ", lengths[i], "; expected >= 0");

  std::vector<int> order(lengths.size());
  std::iota(order.begin(), order.end(), 0);
  if (opts.shuffle) rng.shuffle(order.begin(), order.end());

  const std::size_t window = opts.maxi_batch > 0
                                 ? static_cast<std::size_t>(opts.maxi_batch) * static_cast<std::size_t>(opts.batch_size)
                                 : order.size();
  std::vector<std::vector<int>> batches;
  for (std::size_t start = 0; start < order.size(); start += window) {
    const auto first = order.begin() + static_cast<std::ptrdiff_t>(start);
    const auto last = order.begin() + static_cast<std::ptrdiff_t>(std::min(order.size(), start + window));
    if (opts.sort_by_length)
      std::stable_sort(first, last, [&](int a, int b) { return lengths[a] < lengths[b]; });
    std::vector<int> cur;
    std::int64_t longest = 0;
    for (auto it = first; it != last; ++it) {
      const std::int64_t len = lengths[*it];
      const std::int64_t padded = static_cast<std::int64_t>(cur.size() + 1) * std::max(longest, len);
      const bool full = static_cast<int>(cur.size()) >= opts.batch_size ||
                        (opts.max_tokens > 0 && padded > opts.max_tokens);
      if (full && !cur.empty()) {
        batches.push_back(std::move(cur));
        cur.clear();
        longest = 0;
      }
      cur.push_back(*it);
      longest = std::max(longest, len);
    }
    if (!cur.empty()) batches.push_back(std::move(cur));
  }
  if (opts.shuffle) rng.shuffle(batches.begin(), batches.end());
  return batches;
}

}  // namespace twin
