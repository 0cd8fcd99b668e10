// Ensembles of step scorers (decode/ensemble.h) over the toy scorer of toy_scorer.h: one model is that model,
// two give the log of the (weighted) mean probability, and mismatched members are errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "decode/beam_search.h"
#include "decode/ensemble.h"
#include "test_util.h"
#include "toy_scorer.h"

namespace twin::nmt {
namespace {

using namespace toy;
using toy::kBos;   // not corpus/nmt_batch.h's twin::nmt::kBos, which a unity batch may hold too (same value)
using test::contains;
using test::error_of;

std::vector<ToySentence> ensemble_sentences(std::uint64_t seed) {
  return {{seed, 3, 0, false, false, {}, {}}, {seed + 1, 5, 0.5, false, false, {}, {}}};
}

TEST(Ensemble, OfOneModelIsThatModel) {
  ToyScorer a(10, ensemble_sentences(1)), b(10, ensemble_sentences(1));
  EnsembleScorer e({&a});
  EXPECT_EQ(e.vocab_size(), 10);
  EXPECT_EQ(e.num_sentences(), 2);
  EXPECT_EQ(e.source_length(1), 5);
  const std::vector<int> parent = {0, 1, 1};
  const Ids prev = {kBos, kBos, kBos};
  const Mat le = e.step(parent, prev), lb = b.step(parent, prev);
  EXPECT_TRUE(le == lb);   // bit for bit
  EXPECT_TRUE(*e.last_attention() == *b.last_attention());

  SearchConfig cfg = config(4, 3, "gnmt", 1.0, 2);
  cfg.keep_attention = true;
  ToyScorer c(10, ensemble_sentences(1)), d(10, ensemble_sentences(1));
  EnsembleScorer ec({&c});
  std::vector<std::vector<Hypothesis>> he = beam_search(ec, cfg), hd = beam_search(d, cfg);
  for (int s = 0; s < 2; ++s) {
    ASSERT_EQ(he[s].size(), hd[s].size());
    for (std::size_t i = 0; i < hd[s].size(); ++i) expect_same(he[s][i], hd[s][i]);
  }
  // Two copies of the same model: log(p/2 + p/2) = log p, exactly as well.
  ToyScorer x(10, ensemble_sentences(1)), y(10, ensemble_sentences(1)), z(10, ensemble_sentences(1));
  EnsembleScorer twice({&x, &y});
  EXPECT_TRUE(twice.step(parent, prev) == z.step(parent, prev));
}

TEST(Ensemble, TwoModelsGiveTheLogOfTheMeanProbability) {
  const std::vector<int> parent = {0, 1};
  const Ids prev = {kBos, kBos};
  for (const std::vector<double>& w : std::vector<std::vector<double>>{{}, {1, 3}}) {
    ToyScorer a(10, ensemble_sentences(1)), b(10, ensemble_sentences(7));
    EnsembleScorer e({&a, &b}, w);
    const Mat l = e.step(parent, prev);
    const double w1 = w.empty() ? 0.5 : 0.25, w2 = 1 - w1;
    for (int r = 0; r < 2; ++r) {
      std::vector<float> l1 = a.log_probs(r, {}), l2 = b.log_probs(r, {});
      double z = 0;
      for (int v = 0; v < 10; ++v) {
        if (v == kBos) {   // both models forbid it
          EXPECT_EQ(l(r, v), -std::numeric_limits<float>::infinity());
          continue;
        }
        const double want = std::log(w1 * std::exp(double(l1[v])) + w2 * std::exp(double(l2[v])));
        EXPECT_NEAR(l(r, v), want, 1e-6) << "row " << r << " token " << v;
        z += std::exp(double(l(r, v)));
      }
      EXPECT_NEAR(z, 1.0, 1e-5);   // still a distribution
    }
    EXPECT_TRUE(*e.last_attention() == *a.last_attention());   // the first model's
  }
  // Decoding through a two-model ensemble runs (and both members advance in step).
  ToyScorer a(10, ensemble_sentences(1)), b(10, ensemble_sentences(7));
  EnsembleScorer e({&a, &b});
  std::vector<std::vector<Hypothesis>> h = beam_search(e, config(3, 2, "length", 1, 2));
  EXPECT_EQ(h.size(), 2u);
  EXPECT_EQ(a.row_sentences, b.row_sentences);
}

TEST(Ensemble, MismatchedModelsAndBadWeightsAreErrors) {
  ToyScorer a(10, ensemble_sentences(1)), small(9, ensemble_sentences(1)), one(10, {{1, 3, 0, false, false, {}, {}}});
  std::vector<ToySentence> other_len = ensemble_sentences(1);
  other_len[1].src_len = 4;
  ToyScorer b(10, other_len);
  auto make = [](std::vector<StepScorer*> m, std::vector<double> w = {}) {
    return error_of([&] { EnsembleScorer e(m, w); });
  };
  EXPECT_TRUE(contains(make({}), "no models"));
  EXPECT_TRUE(contains(make({&a, &small}), "vocab_size"));
  EXPECT_TRUE(contains(make({&a, &one}), "sentences"));
  EXPECT_TRUE(contains(make({&a, &b}), "source_length(1)"));
  EXPECT_TRUE(contains(make({&a}, {1, 2}), "weights"));
  EXPECT_TRUE(contains(make({&a}, {-1}), "weights"));
  EXPECT_TRUE(contains(make({&a}, {0}), "sum to 0"));
}

}  // namespace
}  // namespace twin::nmt
