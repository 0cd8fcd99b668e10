// The toy step scorer of the beam-search and ensemble tests: its decoder state is the prefix itself,
// log p(. | prefix) = log_softmax(logits), the logits from a table or a hash of (sentence seed, prefix). So an
// exhaustive enumeration of outputs is an exact oracle, and rows of different sentences are independent.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "decode/beam_search.h"

namespace twin::nmt::toy {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kBos = 1, kEos = 2;

struct ToySentence {
  std::uint64_t seed = 1;
  int src_len = 3;
  double eos_bias = 0;                        // added to EOS's hashed logit (shorter or longer outputs)
  bool forbid_eos = false;                    // EOS gets -inf: only the max-length rule stops
  bool uniform = false;                       // all allowed tokens equally likely (exact ties)
  std::map<Ids, std::vector<double>> table;   // logits per prefix; overrides the rules above
  std::vector<double> table_default;          // logits for prefixes missing from `table`, if non-empty
};

inline std::uint64_t mix(std::uint64_t x) {   // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
inline double hash_unit(std::uint64_t seed, const Ids& prefix, std::uint64_t salt) {   // in [0, 1)
  std::uint64_t h = mix(seed ^ mix(salt));
  for (std::int32_t t : prefix) h = mix(h ^ static_cast<std::uint64_t>(t + 7));
  return static_cast<double>(h >> 11) / 9007199254740992.0;
}

class ToyScorer : public StepScorer {
 public:
  ToyScorer(int vocab, std::vector<ToySentence> sents) : vocab_(vocab), sents_(std::move(sents)) {
    for (const ToySentence& s : sents_) max_src_ = std::max(max_src_, s.src_len);
  }
  int vocab_size() const override { return vocab_; }
  int num_sentences() const override { return static_cast<int>(sents_.size()); }
  int source_length(int s) const override { return sents_.at(static_cast<std::size_t>(s)).src_len; }

  // The float log-probs the scorer returns for sentence s after `prefix`.
  std::vector<float> log_probs(int s, const Ids& prefix) const {
    const ToySentence& t = sents_[static_cast<std::size_t>(s)];
    std::vector<double> x(static_cast<std::size_t>(vocab_));
    auto it = t.table.find(prefix);
    if (it != t.table.end()) {
      x = it->second;
    } else if (!t.table_default.empty()) {
      x = t.table_default;
    } else {
      for (int v = 0; v < vocab_; ++v) x[v] = t.uniform ? 0.0 : 6.0 * hash_unit(t.seed, prefix, v) - 3.0;
      x[kEos] = t.forbid_eos ? -kInf : x[kEos] + (t.uniform ? 0.0 : t.eos_bias);
      x[kBos] = -kInf;
    }
    double m = -kInf, z = 0;
    for (double v : x) m = std::max(m, v);
    if (m == -kInf) return std::vector<float>(x.size(), -std::numeric_limits<float>::infinity());
    for (double v : x) z += std::exp(v - m);
    std::vector<float> out(x.size());
    for (std::size_t v = 0; v < x.size(); ++v) out[v] = static_cast<float>(x[v] - m - std::log(z));
    return out;
  }
  // Attention of a row: a softmax over the sentence's src_len + 1 positions, garbage (99) in the padding.
  std::vector<float> attention(int s, const Ids& prefix) const {
    const ToySentence& t = sents_[static_cast<std::size_t>(s)];
    std::vector<float> a(static_cast<std::size_t>(max_src_) + 1, 99.0f);
    double z = 0;
    for (int j = 0; j <= t.src_len; ++j) z += std::exp(3 * hash_unit(t.seed + 1000, prefix, j));
    for (int j = 0; j <= t.src_len; ++j) a[j] = static_cast<float>(std::exp(3 * hash_unit(t.seed + 1000, prefix, j)) / z);
    return a;
  }

  Mat step(const std::vector<int>& parent, const Ids& prev) override {
    EXPECT_EQ(parent.size(), prev.size());
    std::vector<Row> rows;
    for (std::size_t r = 0; r < parent.size(); ++r) {
      if (calls_ == 0) {   // first call: parents are sentences, prev is BOS
        EXPECT_TRUE(parent[r] >= 0 && parent[r] < num_sentences()) << parent[r];
        EXPECT_EQ(prev[r], kBos);
        rows.push_back({parent[r], {}});
      } else {
        EXPECT_TRUE(parent[r] >= 0 && parent[r] < static_cast<int>(rows_.size())) << parent[r];
        EXPECT_NE(prev[r], kEos) << "a finished hypothesis was continued";
        Row row = rows_.at(static_cast<std::size_t>(parent[r]));
        row.prefix.push_back(prev[r]);
        rows.push_back(row);
      }
    }
    rows_ = rows;
    ++calls_;
    std::vector<int> sents;
    for (const Row& r : rows_) sents.push_back(r.sent);
    row_sentences.push_back(sents);
    Mat lp(static_cast<Index>(rows_.size()), vocab_ - bad_cols);
    att_.resize(static_cast<Index>(rows_.size()), max_src_ + 1);
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      std::vector<float> l = log_probs(rows_[r].sent, rows_[r].prefix), a = attention(rows_[r].sent, rows_[r].prefix);
      for (Index v = 0; v < lp.cols(); ++v) lp(static_cast<Index>(r), v) = l[static_cast<std::size_t>(v)];
      for (Index j = 0; j < att_.cols(); ++j) att_(static_cast<Index>(r), j) = a[static_cast<std::size_t>(j)];
    }
    if (poison_at_call == calls_) lp(0, 0) = poison;
    return lp;
  }
  const Mat* last_attention() const override { return with_attention ? &att_ : nullptr; }

  std::vector<std::vector<int>> row_sentences;   // per call, the sentence of every row
  bool with_attention = true;
  int bad_cols = 0;                              // > 0: return too few columns
  int poison_at_call = 0;                        // > 0: lp(0, 0) = poison at that call
  float poison = 0;

 private:
  struct Row {
    int sent;
    Ids prefix;
  };
  int vocab_, max_src_ = 0, calls_ = 0;
  std::vector<ToySentence> sents_;
  std::vector<Row> rows_;
  Mat att_;
};

inline SearchConfig config(int beam, int nbest, const std::string& normalize, double a = 0, double b = 4) {
  SearchConfig c;
  c.beam = beam, c.nbest = nbest, c.max_len_a = a, c.max_len_b = b;
  c.normalize = *value_of(kLengthNormNames, normalize);   // tests spell it as the experiment key does
  return c;
}


// Two hypotheses equal in every field, bit for bit.
inline void expect_same(const Hypothesis& a, const Hypothesis& b) {
  EXPECT_EQ(a.tokens, b.tokens);
  EXPECT_EQ(a.logprob, b.logprob);
  EXPECT_EQ(a.score, b.score);
  EXPECT_EQ(a.finished, b.finished);
  EXPECT_EQ(a.attention, b.attention);
}

}  // namespace twin::nmt::toy
