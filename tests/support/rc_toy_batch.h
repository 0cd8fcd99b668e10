// Hand-made RcBatch values for the reading-comprehension model's tests (tests/grad_rc.cc, tests/test_rc_model.cc):
// given passages and questions as word ids, fills the time-major ids, characters and masks of tasks/rc/rc_batch.h.
// Each word's characters follow from its id (1 + id % word_len characters, ids 2 + (id + c) % (chars - 2)), so the
// same word always spells the same. extra_p / extra_q append that many padded positions beyond the longest passage /
// question; with noise_seed != 0 the padded positions get random word and character ids instead of 0 (the model
// must read the masks, never the ids, to know padding).
#pragma once
#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "rc_batch.h"

namespace twin::rc::test {

inline RcBatch toy_batch(const std::vector<std::vector<int>>& passages, const std::vector<std::vector<int>>& questions,
                         const std::vector<std::pair<int, int>>& answers, Index word_len, int words, int chars,
                         Index extra_p = 0, Index extra_q = 0, unsigned noise_seed = 0) {
  RcBatch b;
  b.batch = static_cast<Index>(passages.size());
  for (const auto& p : passages) b.passage_len = std::max<Index>(b.passage_len, static_cast<Index>(p.size()));
  for (const auto& q : questions) b.question_len = std::max<Index>(b.question_len, static_cast<Index>(q.size()));
  b.passage_len += extra_p;
  b.question_len += extra_q;
  b.word_len = word_len;
  std::mt19937 noise(noise_seed);
  auto fill = [&](const std::vector<std::vector<int>>& seqs, Index T, std::vector<int>& ids, std::vector<int>& ch,
                  Mat& mask) {
    const Index B = b.batch, L = word_len;
    ids.assign(static_cast<size_t>(T * B), 0);
    ch.assign(static_cast<size_t>(T * B * L), 0);
    mask = Mat::Zero(T * B, 1);
    for (Index q = 0; q < B; ++q)
      for (Index t = 0; t < T; ++t) {
        const size_t row = static_cast<size_t>(t * B + q);
        const bool real = t < static_cast<Index>(seqs[static_cast<size_t>(q)].size());
        if (real) {
          const int w = seqs[static_cast<size_t>(q)][static_cast<size_t>(t)];
          ids[row] = w;
          mask(static_cast<Index>(row), 0) = 1;
          for (Index c = 0; c < 1 + w % L; ++c) ch[row * static_cast<size_t>(L) + static_cast<size_t>(c)] = 2 + (w + static_cast<int>(c)) % (chars - 2);
        } else if (noise_seed != 0) {
          ids[row] = static_cast<int>(noise() % static_cast<unsigned>(words));
          for (Index c = 0; c < L; ++c)
            ch[row * static_cast<size_t>(L) + static_cast<size_t>(c)] = static_cast<int>(noise() % static_cast<unsigned>(chars));
        }
      }
  };
  fill(passages, b.passage_len, b.passage_words, b.passage_chars, b.passage_mask);
  fill(questions, b.question_len, b.question_words, b.question_chars, b.question_mask);
  for (const auto& [s, e] : answers) {
    b.answer_start.push_back(s);
    b.answer_end.push_back(e);
  }
  return b;
}

}  // namespace twin::rc::test
