// Beam search and greedy decoding over the toy scorer (toy_scorer.h): a wide beam must equal the exhaustive
// enumeration of outputs, which is exact there.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <set>

#include "decode/beam_search.h"
#include "test_util.h"
#include "toy_scorer.h"

namespace twin::nmt {
namespace {

using namespace toy;
using test::contains;
using test::error_of;

// Every output the search could return (finished ones up to max_len - 1 tokens, unfinished ones of max_len),
// with its exact log-prob (the same double sums of float log-probs) and score, best first.
std::vector<Hypothesis> exhaustive(const ToyScorer& toy, int s, const SearchConfig& cfg) {
  const int max_len = max_target_length(cfg, toy.source_length(s));
  std::vector<Hypothesis> all;
  std::function<void(Ids, double)> rec = [&](Ids prefix, double lp) {
    std::vector<float> l = toy.log_probs(s, prefix);
    for (int v = 0; v < toy.vocab_size(); ++v) {
      if (std::isinf(l[v])) continue;
      const double sum = lp + static_cast<double>(l[v]);
      Ids next = prefix;
      if (v == kEos) {
        all.push_back({prefix, sum, normalized_score(cfg, sum, static_cast<int>(prefix.size()) + 1), true, {}});
        continue;
      }
      next.push_back(v);
      if (static_cast<int>(next.size()) == max_len)
        all.push_back({next, sum, normalized_score(cfg, sum, max_len), false, {}});
      else
        rec(next, sum);
    }
  };
  rec({}, 0.0);
  std::stable_sort(all.begin(), all.end(), [](const Hypothesis& a, const Hypothesis& b) { return a.score > b.score; });
  return all;
}


double hand_score(const std::string& normalize, double logprob, int len) {
  if (normalize == "none") return logprob;
  if (normalize == "length") return logprob / len;
  return logprob / std::pow((5.0 + len) / 6.0, 0.6);
}

TEST(BeamSearch, WideBeamEqualsExhaustiveSearch) {
  for (const std::string norm : {"none", "length", "gnmt"}) {
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      SCOPED_TRACE(norm + " seed " + std::to_string(seed));
      // Vocabulary 5 (BOS forbidden, EOS, 3 words), max_len 4: 40 finished + 81 unfinished outputs.
      ToyScorer toy(5, {{seed, 2, seed % 2 ? 0.0 : 1.0, false, false, {}, {}}});
      const SearchConfig cfg = config(121, 121, norm, 0, 4);
      std::vector<Hypothesis> oracle = exhaustive(toy, 0, cfg);
      ASSERT_EQ(oracle.size(), 121u);
      std::vector<Hypothesis> got = beam_search(toy, cfg)[0];
      ASSERT_EQ(got.size(), oracle.size());
      for (std::size_t i = 0; i < got.size(); ++i) {
        SCOPED_TRACE("rank " + std::to_string(i));
        expect_same(got[i], oracle[i]);
        EXPECT_EQ(oracle[i].score, hand_score(norm, oracle[i].logprob,
                                              static_cast<int>(oracle[i].tokens.size()) + oracle[i].finished));
      }
      // The same top 5 when only 5 are asked for (the search is the same; only the list is cut).
      ToyScorer toy2(5, {{seed, 2, seed % 2 ? 0.0 : 1.0, false, false, {}, {}}});
      std::vector<Hypothesis> top = beam_search(toy2, config(121, 5, norm, 0, 4))[0];
      ASSERT_EQ(top.size(), 5u);
      for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(top[i].tokens, oracle[i].tokens);
    }
  }
}

// p(3) = .6, p(4) = .4 first; after 3 four tokens at .25 each, after 4 EOS at .99: greedy takes 3 (then the
// tie .25 to the lowest token, 0, then EOS: p = .15), beam 2 finds [4] (p = .396), the exhaustive optimum.
ToyScorer trap_scorer() {
  auto logits = [](std::vector<double> p) {
    for (double& x : p) x = std::log(x);
    return p;
  };
  ToySentence t;
  t.src_len = 2;
  t.table[{}] = logits({0, 0, 0, .6, .4});
  t.table[{3}] = logits({.25, 0, .25, .25, .25});
  t.table[{4}] = logits({.01, 0, .99, 0, 0});
  t.table_default = logits({0, 0, 1, 0, 0});
  return ToyScorer(5, {t});
}

TEST(BeamSearch, SmallBeamMissesTheOptimumThatAWiderBeamFinds) {
  const SearchConfig c1 = config(1, 1, "none", 0, 5), c2 = config(2, 1, "none", 0, 5);
  ToyScorer a = trap_scorer(), b = trap_scorer(), c = trap_scorer();
  const Hypothesis greedy = beam_search(a, c1)[0][0], wide = beam_search(b, c2)[0][0];
  EXPECT_EQ(greedy.tokens, (Ids{3, 0}));
  EXPECT_NEAR(greedy.logprob, std::log(.6 * .25), 1e-6);
  EXPECT_EQ(wide.tokens, (Ids{4}));
  EXPECT_NEAR(wide.logprob, std::log(.4 * .99), 1e-6);
  EXPECT_EQ(exhaustive(c, 0, c2)[0].tokens, (Ids{4}));
}

// Nematus' shrinking beam: once a hypothesis has finished, only beam - 1 continue. Here EOS is the best first
// token, so beam 3 keeps [EOS] finished and two live ones; after that every step keeps two (not three).
TEST(BeamSearch, FinishedHypothesesShrinkTheBeam) {
  auto logits = [](std::vector<double> p) {
    for (double& x : p) x = std::log(x);
    return p;
  };
  ToySentence t;
  t.table[{}] = logits({.2, 0, .5, .2, .1});
  t.table_default = logits({.3, 0, .1, .3, .3});
  ToyScorer toy(5, {t});
  std::vector<Hypothesis> list = beam_search(toy, config(3, 3, "none", 0, 3))[0];
  ASSERT_EQ(toy.row_sentences.size(), 3u);
  EXPECT_EQ(toy.row_sentences[0].size(), 1u);   // the sentence itself
  EXPECT_EQ(toy.row_sentences[1].size(), 2u);   // [0] and [3]; [EOS] finished, [4] fell out
  EXPECT_EQ(toy.row_sentences[2].size(), 2u);   // still 3 - 1
  ASSERT_EQ(list.size(), 3u);                   // [] finished, two stopped by the max-length rule
  EXPECT_EQ(list[0].tokens, Ids{});
  EXPECT_TRUE(list[0].finished);
  EXPECT_NEAR(list[0].logprob, std::log(.5), 1e-6);
  // Candidates tie at every step (.3 each): the lower token goes first, then the earlier row.
  EXPECT_EQ(list[1].tokens, (Ids{0, 0, 0}));
  EXPECT_EQ(list[2].tokens, (Ids{3, 0, 0}));
  EXPECT_FALSE(list[1].finished);
  EXPECT_FALSE(list[2].finished);
}

TEST(BeamSearch, BeamOneIsGreedy) {
  for (const std::string norm : {"none", "length", "gnmt"}) {
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      SCOPED_TRACE(norm + " seed " + std::to_string(seed));
      std::vector<ToySentence> sents;
      for (int s = 0; s < 4; ++s) sents.push_back({seed * 10 + s, 2 + s, -1.0 + s, false, s == 3, {}, {}});
      SearchConfig cfg = config(1, 1, norm, 1.0, 3);
      cfg.keep_attention = true;
      ToyScorer a(9, sents), b(9, sents);
      std::vector<std::vector<Hypothesis>> beam = beam_search(a, cfg);
      std::vector<Hypothesis> greedy = greedy_search(b, cfg);
      ASSERT_EQ(beam.size(), 4u);
      for (int s = 0; s < 4; ++s) {
        ASSERT_EQ(beam[s].size(), 1u);
        expect_same(beam[s][0], greedy[s]);
        // Greedy really takes the argmax (lowest token on ties: the uniform sentence gives all 0s).
        Ids prefix;
        for (std::int32_t t : greedy[s].tokens) {
          std::vector<float> l = a.log_probs(s, prefix);
          EXPECT_EQ(t, std::max_element(l.begin(), l.end()) - l.begin());
          prefix.push_back(t);
        }
      }
    }
  }
}

TEST(BeamSearch, EosEndsAHypothesisAndCountsInItsLength) {
  auto logits = [](std::vector<double> p) {
    for (double& x : p) x = std::log(x);
    return p;
  };
  ToySentence t;
  t.table[{}] = logits({.05, 0, .05, .9, 0});
  t.table[{3}] = logits({.1, 0, .1, 0, .8});
  t.table[{3, 4}] = logits({.02, 0, .95, .02, .01});
  t.table_default = logits({.25, 0, .25, .25, .25});
  for (const std::string norm : {"none", "length", "gnmt"}) {
    ToyScorer toy(5, {t}), toy2(5, {t});
    const Hypothesis h = beam_search(toy, config(3, 1, norm, 0, 10))[0][0];
    EXPECT_EQ(h.tokens, (Ids{3, 4}));   // no BOS, no EOS
    EXPECT_TRUE(h.finished);
    const double lp = double(toy.log_probs(0, {})[3]) + double(toy.log_probs(0, {3})[4]) +
                      double(toy.log_probs(0, {3, 4})[kEos]);
    EXPECT_DOUBLE_EQ(h.logprob, lp);
    EXPECT_DOUBLE_EQ(h.score, hand_score(norm, lp, 3));   // 2 tokens + EOS
    expect_same(greedy_search(toy2, config(3, 1, norm, 0, 10))[0], h);
  }
}

TEST(BeamSearch, MaxLengthStopsUnfinished) {
  SearchConfig cfg = config(3, 3, "length", 1.5, 0.6);
  EXPECT_EQ(max_target_length(cfg, 2), 3);   // floor(1.5 * 2 + 0.6)
  ToyScorer toy(6, {{7, 2, 0, /*forbid_eos=*/true, false, {}, {}}});
  std::vector<Hypothesis> list = beam_search(toy, cfg)[0];
  ASSERT_EQ(list.size(), 3u);
  for (const Hypothesis& h : list) {
    EXPECT_EQ(h.tokens.size(), 3u);
    EXPECT_FALSE(h.finished);
    EXPECT_DOUBLE_EQ(h.score, h.logprob / 3);   // no EOS to count
  }
  EXPECT_EQ(toy.row_sentences.size(), 3u);      // three steps, no fourth
  ToyScorer toy2(6, {{7, 2, 0, true, false, {}, {}}});
  const Hypothesis g = greedy_search(toy2, cfg)[0];
  EXPECT_FALSE(g.finished);
  EXPECT_EQ(g.tokens.size(), 3u);
}

TEST(BeamSearch, NbestIsSortedDistinctAndTracedBackCorrectly) {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    ToyScorer toy(20, {{seed, 6, -0.5, false, false, {}, {}}});
    std::vector<Hypothesis> list = beam_search(toy, config(6, 6, "length", 1.0, 2))[0];
    ASSERT_EQ(list.size(), 6u);
    std::set<std::pair<Ids, bool>> seen;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Hypothesis& h = list[i];
      if (i > 0) {
        EXPECT_GE(list[i - 1].score, h.score);
      }
      EXPECT_TRUE(seen.insert({h.tokens, h.finished}).second) << "duplicate hypothesis";
      EXPECT_TRUE(std::find(h.tokens.begin(), h.tokens.end(), kEos) == h.tokens.end());
      EXPECT_LE(h.tokens.size(), 8u);
      // The log-prob recomputed from the tokens: the back-pointers gave the path the scores were summed on.
      double lp = 0;
      Ids prefix;
      for (std::int32_t t : h.tokens) lp += toy.log_probs(0, prefix)[t], prefix.push_back(t);
      if (h.finished) lp += toy.log_probs(0, prefix)[kEos];
      EXPECT_DOUBLE_EQ(h.logprob, lp);
    }
  }
}

// Several sentences (different tables, lengths, EOS biases, one with exact ties) in one scorer give what each
// gives alone; a sentence that has stopped produces no more rows.
TEST(BeamSearch, BatchedEqualsOneSentenceAtATime) {
  std::vector<ToySentence> sents;
  for (int s = 0; s < 6; ++s) sents.push_back({100u + s, 1 + 2 * s, s == 0 ? 4.0 : -1.0 + 0.3 * s, false, s == 4, {}, {}});
  for (const std::string norm : {"none", "length", "gnmt"}) {
    SCOPED_TRACE(norm);
    SearchConfig cfg = config(4, 3, norm, 1.0, 2);
    cfg.keep_attention = true;
    ToyScorer batch(11, sents), gbatch(11, sents);
    std::vector<std::vector<Hypothesis>> all = beam_search(batch, cfg);
    std::vector<Hypothesis> gall = greedy_search(gbatch, cfg);
    ASSERT_EQ(all.size(), sents.size());
    for (int s = 0; s < static_cast<int>(sents.size()); ++s) {
      SCOPED_TRACE("sentence " + std::to_string(s));
      ToyScorer one(11, {sents[s]}), gone(11, {sents[s]});
      std::vector<Hypothesis> alone = beam_search(one, cfg)[0];
      ASSERT_EQ(all[s].size(), alone.size());
      for (std::size_t i = 0; i < alone.size(); ++i) expect_same(all[s][i], alone[i]);
      expect_same(gall[s], greedy_search(gone, cfg)[0]);
      // The sentence has rows in exactly the steps it had alone: the first ones, none after it stopped.
      std::size_t last = 0, count = 0;
      for (std::size_t t = 0; t < batch.row_sentences.size(); ++t) {
        const auto& rs = batch.row_sentences[t];
        if (std::find(rs.begin(), rs.end(), s) != rs.end()) last = t + 1, ++count;
      }
      EXPECT_EQ(count, one.row_sentences.size());
      EXPECT_EQ(last, one.row_sentences.size());
    }
  }
}

TEST(BeamSearch, AttentionRowsPerTokenCutToTheSentence) {
  std::vector<ToySentence> sents = {{3, 2, 0, false, false, {}, {}}, {4, 5, 0, false, false, {}, {}}};
  SearchConfig cfg = config(3, 3, "length", 1.0, 2);
  cfg.keep_attention = true;
  ToyScorer toy(8, sents);
  std::vector<std::vector<Hypothesis>> all = beam_search(toy, cfg);
  for (int s = 0; s < 2; ++s) {
    for (const Hypothesis& h : all[s]) {
      ASSERT_EQ(h.attention.size(), h.tokens.size() + (h.finished ? 1 : 0));
      Ids prefix;
      for (std::size_t i = 0; i < h.attention.size(); ++i) {
        std::vector<float> want = toy.attention(s, prefix);
        want.resize(static_cast<std::size_t>(sents[s].src_len) + 1);   // padding (99) cut off
        EXPECT_EQ(h.attention[i], want);
        if (i < h.tokens.size()) prefix.push_back(h.tokens[i]);
      }
    }
  }
  cfg.keep_attention = false;
  ToyScorer toy2(8, sents);
  EXPECT_TRUE(beam_search(toy2, cfg)[0][0].attention.empty());
}

TEST(BeamSearch, BadConfigsNameTheField) {
  struct Case {
    std::function<void(SearchConfig&)> edit;
    std::string field;
  };
  const std::vector<Case> cases = {
      {[](SearchConfig& c) { c.beam = 0; }, "beam"},
      {[](SearchConfig& c) { c.nbest = 0; }, "nbest"},
      {[](SearchConfig& c) { c.nbest = c.beam + 1; }, "nbest"},
      {[](SearchConfig& c) { c.alpha = -1; }, "alpha"},
      {[](SearchConfig& c) { c.max_len_a = -1; }, "max_len_a"},
      {[](SearchConfig& c) { c.max_len_b = std::nan(""); }, "max_len_b"},
      {[](SearchConfig& c) { c.max_len_a = 0, c.max_len_b = 0.5; }, "max_len"},
      {[](SearchConfig& c) { c.eos = 5; }, "eos"},
      {[](SearchConfig& c) { c.bos = -1; }, "bos"},
  };
  for (const Case& k : cases) {
    SearchConfig cfg = config(4, 2, "length", 1, 2);
    k.edit(cfg);
    ToyScorer toy(5, {{1, 3, 0, false, false, {}, {}}});
    const std::string msg = error_of([&] { beam_search(toy, cfg); });
    EXPECT_TRUE(contains(msg, k.field)) << k.field << ": " << msg;
    EXPECT_TRUE(toy.row_sentences.empty()) << "checked before the first step";
    if (k.field != "beam" && k.field != "nbest") {   // greedy ignores beam and nbest
      ToyScorer toy2(5, {{1, 3, 0, false, false, {}, {}}});
      EXPECT_TRUE(contains(error_of([&] { greedy_search(toy2, cfg); }), k.field)) << k.field;
    }
  }
}

TEST(BeamSearch, BadScorerOutputIsAnError) {
  const SearchConfig cfg = config(3, 1, "length", 1, 2);
  ToyScorer narrow(6, {{1, 3, 0, false, false, {}, {}}});
  narrow.bad_cols = 1;
  std::string msg = error_of([&] { beam_search(narrow, cfg); });
  EXPECT_TRUE(contains(msg, "StepScorer::step returned [1x5]") && contains(msg, "expected [1x6]")) << msg;

  ToyScorer nan(6, {{1, 3, 0, false, false, {}, {}}});
  nan.poison_at_call = 2, nan.poison = std::numeric_limits<float>::quiet_NaN();
  msg = error_of([&] { beam_search(nan, cfg); });
  EXPECT_TRUE(contains(msg, "nan") && contains(msg, "step 2")) << msg;

  ToySentence all_forbidden;
  all_forbidden.table_default = std::vector<double>(6, -kInf);
  ToyScorer dead(6, {all_forbidden});
  EXPECT_TRUE(contains(error_of([&] { beam_search(dead, cfg); }), "-inf for every token"));
  ToyScorer dead2(6, {all_forbidden});
  EXPECT_TRUE(contains(error_of([&] { greedy_search(dead2, cfg); }), "-inf for every token"));

  SearchConfig with_att = cfg;
  with_att.keep_attention = true;
  ToyScorer no_att(6, {{1, 3, 0, false, false, {}, {}}});
  no_att.with_attention = false;
  EXPECT_TRUE(contains(error_of([&] { beam_search(no_att, with_att); }), "no attention"));
}

TEST(BeamSearch, EmptyBatchMakesNoCalls) {
  ToyScorer toy(5, {});
  EXPECT_TRUE(beam_search(toy, SearchConfig{}).empty());
  EXPECT_TRUE(greedy_search(toy, SearchConfig{}).empty());
  EXPECT_TRUE(toy.row_sentences.empty());
}

}  // namespace
}  // namespace twin::nmt
