// SNLI models (tasks/snli/snli_model.h), both kinds ("cond": the ATR authors' attention-conditioned two-level
// reader; "wbw": Rocktäschel et al. 2016 word-by-word attention) with ATR, LSTM and GRU cells:
//  - logits are [B, 3];
//  - padding cannot leak: each example's logits in a padded batch equal (<= 1e-5) its logits alone in a batch
//    of one, and changing the token ids at padded positions changes nothing at all;
//  - masked premise positions receive exactly zero attention at every hypothesis step, real positions a
//    distribution summing to 1, and each example's weights equal its weights alone in a batch of one;
//  - the parameter count equals the closed form (cells' expected_params + the layers around them);
//  - 8 pairs are overfitted with Adam in 100 steps (training accuracy 100 %, loss down 10x);
//  - the parameter counts at the paper's size (d = 300, 36k vocabulary) are printed;
//  - the exact-match feature on hand-made pairs (padding, <unk>, repeated words), and models with it keep the
//    closed-form count (cells read E+1 inputs) and the batch/padding equalities.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include "attention_weights.h"
#include "base/check.h"
#include "base/json_reader.h"
#include "graph/graph.h"
#include "optim/optimizer.h"
#include "rnn/cell_factory.h"
#include "snli_model.h"
#include "toy_training.h"

namespace twin::snli {
namespace {

constexpr Index kVocab = 20;

// Pairs of different lengths on both sides, so every batch pads premises and hypotheses.
struct Pairs {
  std::vector<Ids> premise, hypothesis;
  Ids labels;
};

Pairs toy_pairs() {
  Pairs p;
  p.premise = {{3, 4, 5, 6, 7}, {8, 9}, {10, 11, 12}, {5}, {13, 3, 14, 4}, {6, 6, 7}, {15, 16}, {17, 18, 19, 2}};
  p.hypothesis = {{4, 5}, {9, 10, 11, 3}, {12}, {5, 6, 7}, {3, 14}, {7, 6, 6, 8, 9}, {16}, {18, 2, 19}};
  p.labels = {0, 1, 2, 0, 1, 2, 2, 0};
  return p;
}

SnliModelConfig small_config(const std::string& kind, const std::string& cell, int d = 8) {
  SnliModelConfig c;
  c.kind = *value_of(kSnliKindNames, kind);   // tests spell the kind as in JSON
  c.embed = d;
  c.cell.type = cell;
  c.cell.hidden = d;
  c.init_scale = 0.3;
  c.cell.init_scale = 0.3;
  return c;
}

Mat run_logits(const SnliModel& m, const SeqBatch& p, const SeqBatch& h) {
  Graph g(Mode::kInfer);
  Rng rng(3);
  return m.logits(g, p, h, rng).val();
}

// Closed form: V E + the cells' own formulas + attention, W_init / W^t W^p W^x and the classifier.
Index expected_count(const SnliModelConfig& c, Index vocab) {
  ParamStore scratch;
  auto cell_params = [&](int input, const std::string& scope) {
    return make_cell(c.cell, input, scratch, scope)->expected_params();
  };
  const Index E = c.embed, H = c.cell.hidden, A = c.attn_dim ? c.attn_dim : H;
  const int in = c.embed + (c.exact_match ? 1 : 0);   // the cells read [e_t ; em_t]
  Index n = vocab * E + H * kSnliModelLabels + kSnliModelLabels;
  if (c.kind == SnliKind::kCond)
    n += 2 * cell_params(in, "f") + cell_params(in, "c1") + cell_params(2 * c.cell.hidden, "c2") +
         (2 * H * H + H) + (2 * H * A + A + H * A + A);
  else
    n += 2 * cell_params(in, "p") + (H * A + 2 * H * A + A) + 3 * H * H;
  return n;
}

class SnliModelTest : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

void check_shape_count_and_no_padding_leak(const SnliModelConfig& c) {
  const std::string_view kind = name_of(kSnliKindNames, c.kind);
  const std::string& cell = c.cell.type;
  ParamStore store(5);
  SnliModel m(c, kVocab, store);
  EXPECT_EQ(store.total_size(), expected_count(c, kVocab));
  std::cout << "[ snli ] " << kind << "/" << cell << " E=H=8 V=20: " << store.total_size() << " parameters\n";

  const Pairs d = toy_pairs();
  const SeqBatch p = pad_batch(d.premise, 0), h = pad_batch(d.hypothesis, 0);
  const Mat all = run_logits(m, p, h);
  ASSERT_EQ(all.rows(), 8);
  ASSERT_EQ(all.cols(), 3);
  ASSERT_TRUE(all.allFinite());
  for (int b = 0; b < 8; ++b) {
    const Mat one = run_logits(m, pad_batch({d.premise[b]}, 0), pad_batch({d.hypothesis[b]}, 0));
    EXPECT_LE((one.row(0) - all.row(b)).cwiseAbs().maxCoeff(), 1e-5) << "example " << b;
  }
  // Other ids at every padded position (premise and hypothesis): bit-for-bit the same logits.
  SeqBatch p2 = p, h2 = h;
  int changed = 0;
  for (SeqBatch* s : {&p2, &h2})
    for (Index t = 0; t < s->steps(); ++t)
      for (Index b = 0; b < s->size(); ++b)
        if (s->mask(t * s->size() + b, 0) == 0) {
          s->ids(t, b) = static_cast<std::int32_t>(3 + (t * 7 + b) % 17);
          ++changed;
        }
  ASSERT_GT(changed, 10);
  EXPECT_EQ((run_logits(m, p2, h2) - all).cwiseAbs().maxCoeff(), 0);

  // The loss is the summed cross-entropy of the logits.
  Graph g(Mode::kInfer);
  Rng rng(3);
  const Real loss = m.loss(g, p, h, d.labels, rng).val()(0, 0);
  Real want = 0;
  for (int b = 0; b < 8; ++b) {
    const Real mx = all.row(b).maxCoeff();
    want += -(all(b, d.labels[b]) - mx - std::log((all.row(b).array() - mx).exp().sum()));
  }
  EXPECT_NEAR(loss, want, 1e-4);
}

TEST_P(SnliModelTest, ShapeCountAndNoPaddingLeak) {
  const auto& [kind, cell] = GetParam();
  check_shape_count_and_no_padding_leak(small_config(kind, cell));
}

TEST_P(SnliModelTest, MaskedPremisePositionsGetZeroAttention) {
  const auto& [kind, cell] = GetParam();
  ParamStore store(5);
  SnliModel m(small_config(kind, cell), kVocab, store);
  const Pairs d = toy_pairs();
  const SeqBatch p = pad_batch(d.premise, 0), h = pad_batch(d.hypothesis, 0);
  Graph g(Mode::kInfer);
  Rng rng(3);
  std::vector<Mat> alpha;
  m.logits(g, p, h, rng, &alpha);
  ASSERT_EQ(static_cast<Index>(alpha.size()), h.steps());   // one α per hypothesis step
  int masked = 0;
  for (const Mat& a : alpha) ASSERT_NO_FATAL_FAILURE(test::expect_weights_on_real_steps(a, p, "premise", &masked));
  ASSERT_GT(masked, 20);   // the toy premises have 1..5 tokens: most rows have padding
  // Example 4 (4 premise tokens, padded to 5 in the batch) alone: the same weights over its real positions.
  std::vector<Mat> one;
  Graph g1(Mode::kInfer);
  m.logits(g1, pad_batch({d.premise[4]}, 0), pad_batch({d.hypothesis[4]}, 0), rng, &one);
  ASSERT_EQ(one.size(), d.hypothesis[4].size());
  for (size_t j = 0; j < one.size(); ++j) {
    ASSERT_EQ(one[j].cols(), 4);
    for (Index i = 0; i < 4; ++i) EXPECT_NEAR(one[j](0, i), alpha[j](4, i), 1e-6) << "step " << j << " position " << i;
  }
}

TEST_P(SnliModelTest, OverfitsEightPairs) {
  const auto& [kind, cell] = GetParam();
  SnliModelConfig c = small_config(kind, cell, 16);
  c.dropout = 0;
  ParamStore store(9);
  SnliModel m(c, kVocab, store);
  const Pairs d = toy_pairs();
  const SeqBatch p = pad_batch(d.premise, 0), h = pad_batch(d.hypothesis, 0);
  const auto [first, last] = twin::test::adam_on_one_batch(
      store, 100, 0.01, [&](Graph& g, Rng& rng) { return m.loss(g, p, h, d.labels, rng); });
  const Mat lg = run_logits(m, p, h);
  int correct = 0;
  for (int b = 0; b < 8; ++b) {
    Index arg = 0;
    lg.row(b).maxCoeff(&arg);
    correct += arg == d.labels[b];
  }
  std::cout << "[ snli ] " << kind << "/" << cell << " overfit: loss " << first << " -> " << last << ", "
            << correct << "/8 correct\n";
  EXPECT_EQ(correct, 8);
  EXPECT_LT(last, first / 10);
}

INSTANTIATE_TEST_SUITE_P(Kinds, SnliModelTest,
                         ::testing::Combine(::testing::Values("cond", "wbw"), ::testing::Values("atr", "lstm", "gru")),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" + std::get<1>(info.param);
                         });

TEST(SnliModel, FrozenEmbeddingsAndBadInput) {
  SnliModelConfig c = small_config("cond", "atr");
  c.freeze_embeddings = true;
  ParamStore store;
  SnliModel m(c, kVocab, store);
  EXPECT_FALSE(m.embeddings().trainable);
  EXPECT_EQ(m.embeddings().value.rows(), kVocab);
  const Pairs d = toy_pairs();
  Graph g;
  Rng rng(1);
  EXPECT_THROW(m.loss(g, pad_batch(d.premise, 0), pad_batch(d.hypothesis, 0), Ids{0, 1}, rng), Error);
  EXPECT_THROW(m.logits(g, pad_batch({d.premise[0]}, 0), pad_batch(d.hypothesis, 0), rng), Error);
  // A misspelt kind is refused by the key table, naming the allowed spellings.
  JsonReader bad(nlohmann::json{{"kind", "bow"}}, "x.json", "model");
  try {
    parse_snli_model(bad);
    ADD_FAILURE() << "model.kind \"bow\" was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("one of cond, wbw"), std::string::npos) << e.what();
  }
}

// Pairs 0-2: premise {3 1 5 5 9}, hypothesis {5 1 7}: 5 matches (both copies in the premise), <unk>=1 never
// does, 3/9/7 have no partner; pair 1: no shared word; pair 2: identical one-word sentences. Padding is 0.
TEST(SnliModel, ExactMatchFeatureOnHandMadePairs) {
  const SeqBatch p = pad_batch({{3, 1, 5, 5, 9}, {4, 6}, {8}}, 0), h = pad_batch({{5, 1, 7}, {7, 3, 9, 2}, {8}}, 0);
  const Mat em_p = exact_match_feature(p, h), em_h = exact_match_feature(h, p);
  ASSERT_EQ(em_p.rows(), 5 * 3);
  ASSERT_EQ(em_h.rows(), 4 * 3);
  // Time-major: row t*B + b.
  const std::vector<std::vector<Real>> want_p = {{0, 0, 1, 1, 0}, {0, 0, 0, 0, 0}, {1, 0, 0, 0, 0}};
  const std::vector<std::vector<Real>> want_h = {{1, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}};
  for (Index b = 0; b < 3; ++b) {
    for (Index t = 0; t < 5; ++t) EXPECT_EQ(em_p(t * 3 + b, 0), want_p[b][t]) << "premise " << b << " word " << t;
    for (Index t = 0; t < 4; ++t) EXPECT_EQ(em_h(t * 3 + b, 0), want_h[b][t]) << "hypothesis " << b << " word " << t;
  }
  EXPECT_THROW(exact_match_feature(p, pad_batch({{5}}, 0)), Error);
}

// With the feature on, the models keep the closed-form count (E+1 cell inputs), [B, 3] logits, batch = one
// at a time, and padding ids change nothing (the feature of padded positions is 0 and never matched).
TEST(SnliModel, ExactMatchModelsCountAndNoPaddingLeak) {
  for (const std::string kind : {"cond", "wbw"}) {
    SnliModelConfig c = small_config(kind, "atr");
    c.exact_match = true;
    check_shape_count_and_no_padding_leak(c);
    // The feature reaches the logits, and only through the match: give id 19 the embedding of id 4 and put it
    // for the 4 of pair 0's hypothesis {4 5} (premise {3 4 5 6 7}); the words look the same to the embedding,
    // so only em changes (4 matched, 19 does not). With the feature the logits move, without it they do not.
    const Pairs d = toy_pairs();
    Pairs swapped = d;
    swapped.hypothesis[0] = {19, 5};
    for (const bool em : {true, false}) {
      c.exact_match = em;
      ParamStore store(5);
      SnliModel m(c, kVocab, store);
      m.embeddings().value.row(19) = m.embeddings().value.row(4);
      const Mat a = run_logits(m, pad_batch({d.premise[0]}, 0), pad_batch({d.hypothesis[0]}, 0));
      const Mat b = run_logits(m, pad_batch({swapped.premise[0]}, 0), pad_batch({swapped.hypothesis[0]}, 0));
      if (em)
        EXPECT_GT((a - b).cwiseAbs().maxCoeff(), 1e-6) << kind;
      else
        EXPECT_EQ((a - b).cwiseAbs().maxCoeff(), 0) << kind;
    }
  }
}

// The paper's size (Table 6: d = 300, GloVe frozen) on a 36k vocabulary: counts for the report.
TEST(SnliModel, PaperSizeParameterCounts) {
  for (const std::string kind : {"cond", "wbw"})
    for (const std::string cell : {"atr", "gru", "lstm"}) {
      SnliModelConfig c = small_config(kind, cell, 300);
      ParamStore store;
      SnliModel m(c, 36000, store);
      const Index total = store.total_size(), emb = m.embeddings().size();
      EXPECT_EQ(total, expected_count(c, 36000));
      std::cout << "[ snli ] " << kind << "/" << cell << " d=300 V=36000: " << total << " total, " << total - emb
                << " without the embeddings\n";
    }
}

}  // namespace
}  // namespace twin::snli
