// Sentence classifiers (tasks/classify/classify_model.h) over the encoders and poolings (uni- and bidirectional
// RNNs of several cells with last / mean / attentive pooling; the self-attention block with sinusoidal, learned
// and relative positions), and the memory analysis (classify_memory.h):
//  - logits are [B, C] and the parameter count equals the closed form;
//  - padding cannot leak: each sentence's logits in a padded batch equal (<= 1e-5) its logits alone in a batch
//    of one, and changing the token ids at padded positions changes nothing at all;
//  - attentive pooling gives padded positions exactly zero weight, the real ones a distribution summing to 1,
//    equal to the sentence's weights alone;
//  - the decomposition identity h_T = Σ_k g_k ⊙ v_k on random sequences for ATR (plain, input_tanh, coupled)
//    and LRN with identity output (relative error <= 1e-5 in float), and only approximately with tanh;
//  - 8 sentences are overfitted with Adam in 60 steps.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include "attention_weights.h"
#include "base/check.h"
#include "classify_memory.h"
#include "classify_model.h"
#include "graph/graph.h"
#include "optim/optimizer.h"
#include "test_util.h"
#include "toy_training.h"

namespace twin::classify {
namespace {

using namespace twin::test;   // the test helpers of test_util.h

constexpr Index kVocab = 20;
constexpr int kLabels = 3;

std::vector<Ids> toy_sentences() {
  return {{3, 4, 5, 6, 7}, {8, 9}, {10, 11, 12}, {5}, {13, 3, 14, 4}, {6, 6, 7, 2, 9, 11}, {15, 16}, {17, 18, 19, 2}};
}
const Ids kToyLabels = {0, 1, 2, 0, 1, 2, 2, 0};

struct Variant {
  std::string name;
  ClassifyModelConfig cfg;
};

ClassifyModelConfig rnn_config(const std::string& cell, bool bi, const std::string& pooling,
                               const std::string& attention = "additive", int d = 8) {
  ClassifyModelConfig c;
  c.embed = d;
  c.cell.type = cell;
  c.cell.hidden = d;
  c.cell.init_scale = 0.3;
  c.bidirectional = bi;
  c.pooling = *value_of(kPoolingNames, pooling);   // tests spell choices as in JSON
  c.attention = *value_of(kPoolScoreNames, attention);
  c.attn_dim = 5;
  c.init_scale = 0.3;
  return c;
}

ClassifyModelConfig sa_config(const std::string& position, const std::string& pooling,
                              const std::string& attention = "additive", int d = 8) {
  ClassifyModelConfig c;
  c.embed = d;
  c.encoder = Encoder::kSelfAttention;
  c.self_attention.heads = 2;
  c.self_attention.ff_dim = 12;
  c.self_attention.layers = 2;
  c.self_attention.position = *value_of(kPositionEncodingNames, position);
  c.self_attention.max_len = 10;
  c.self_attention.clip_k = 2;
  c.pooling = *value_of(kPoolingNames, pooling);   // tests spell choices as in JSON
  c.attention = *value_of(kPoolScoreNames, attention);
  c.init_scale = 0.3;
  return c;
}

std::vector<Variant> variants() {
  std::vector<Variant> v;
  for (const std::string cell : {"lstm", "gru", "atr", "lrn", "sru", "ran"}) {
    v.push_back({cell + "_last", rnn_config(cell, false, "last")});
    v.push_back({cell + "_bi_last", rnn_config(cell, true, "last")});
  }
  v.push_back({"gru_mean", rnn_config("gru", false, "mean")});
  v.push_back({"lstm_bi_mean", rnn_config("lstm", true, "mean")});
  v.push_back({"atr_attentive", rnn_config("atr", false, "attentive")});
  v.push_back({"lstm_bi_attentive", rnn_config("lstm", true, "attentive")});
  v.push_back({"lrn_attentive_dot", rnn_config("lrn", false, "attentive", "dot")});
  v.push_back({"sa_sinusoidal_mean", sa_config("sinusoidal", "mean")});
  v.push_back({"sa_learned_attentive", sa_config("learned", "attentive")});
  v.push_back({"sa_relative_mean", sa_config("relative", "mean")});
  v.push_back({"sa_relative_attentive_dot", sa_config("relative", "attentive", "dot")});
  return v;
}

Mat run_logits(const ClassifyModel& m, const SeqBatch& b, Mat* alpha = nullptr) {
  Graph g(Mode::kInfer);
  Rng rng(3);
  return m.logits(g, b, rng, alpha).val();
}

// Hand-written closed forms for a few configurations (the model's expected_params reuses the cells' and the
// block's own formulas; these do not).
Index hand_count(const ClassifyModelConfig& c) {
  const Index E = c.embed, H = c.cell.hidden, C = kLabels;
  const Index dirs = c.bidirectional ? 2 : 1, F = c.encoder == Encoder::kRnn ? dirs * H : E;
  Index n = kVocab * E + F * C + C;
  if (c.encoder == Encoder::kRnn) {
    Index cell = 0;
    if (c.cell.type == "lstm") cell = 4 * (E * H + H * H + H);
    if (c.cell.type == "gru") cell = 3 * (E * H + H * H + H);
    if (c.cell.type == "atr") cell = E * H + H * H + H;
    if (c.cell.type == "lrn") cell = 3 * E * H + 3 * H;
    if (cell == 0) return -1;
    n += dirs * cell;
  } else {
    const auto& s = c.self_attention;
    const Index Fd = s.ff_dim, dh = E / s.heads;
    Index layer = 4 * E * E + 2 * E * Fd + Fd + E + 4 * E;
    if (s.position == PositionEncoding::kRelative) layer += 2 * (2 * s.clip_k + 1) * dh;
    n += s.layers * layer + (s.position == PositionEncoding::kLearned ? s.max_len * E : 0);
  }
  if (c.pooling == Pooling::kAttentive) {
    const Index A = c.attn_dim > 0 ? c.attn_dim : F;
    n += c.attention == PoolScore::kAdditive ? F * A + 2 * A : F;
  }
  return n;
}

class ClassifyModelTest : public ::testing::TestWithParam<Variant> {};

TEST_P(ClassifyModelTest, ShapeCountAndNoPaddingLeak) {
  const ClassifyModelConfig& c = GetParam().cfg;
  ParamStore store(5);
  ClassifyModel m(c, kVocab, kLabels, store);
  EXPECT_EQ(store.total_size(), ClassifyModel::expected_params(c, kVocab, kLabels));
  if (const Index hand = hand_count(c); hand >= 0) {
    EXPECT_EQ(store.total_size(), hand);
  }
  const Index E = c.embed;
  EXPECT_EQ(m.feature_dim(), c.encoder == Encoder::kRnn ? (c.bidirectional ? 2 : 1) * c.cell.hidden : E);

  const auto sents = toy_sentences();
  const SeqBatch b = pad_batch(sents, 0);
  const Mat all = run_logits(m, b);
  ASSERT_EQ(all.rows(), 8);
  ASSERT_EQ(all.cols(), kLabels);
  ASSERT_TRUE(all.allFinite());
  for (size_t k = 0; k < sents.size(); ++k) {
    const Mat one = run_logits(m, pad_batch({sents[k]}, 0));
    EXPECT_LE((one.row(0) - all.row(static_cast<Index>(k))).cwiseAbs().maxCoeff(), 1e-5) << "sentence " << k;
  }
  // Other ids at every padded position: bit-for-bit the same logits.
  SeqBatch b2 = b;
  int changed = 0;
  for (Index t = 0; t < b2.steps(); ++t)
    for (Index j = 0; j < b2.size(); ++j)
      if (b2.mask(t * b2.size() + j, 0) == 0) {
        b2.ids(t, j) = static_cast<std::int32_t>(2 + (t * 7 + j) % 18);
        ++changed;
      }
  ASSERT_GT(changed, 15);
  EXPECT_EQ((run_logits(m, b2) - all).cwiseAbs().maxCoeff(), 0);

  // The loss is the summed cross-entropy of the logits.
  Graph g(Mode::kInfer);
  Rng rng(3);
  const Real loss = m.loss(g, b, kToyLabels, rng).val()(0, 0);
  Real want = 0;
  for (int k = 0; k < 8; ++k) {
    const Real mx = all.row(k).maxCoeff();
    want += -(all(k, kToyLabels[static_cast<size_t>(k)]) - mx - std::log((all.row(k).array() - mx).exp().sum()));
  }
  EXPECT_NEAR(loss, want, 1e-4);
}

std::vector<Variant> attentive_variants() {
  std::vector<Variant> v;
  for (const Variant& x : variants())
    if (x.cfg.pooling == Pooling::kAttentive) v.push_back(x);
  return v;
}

class ClassifyAttentiveTest : public ::testing::TestWithParam<Variant> {};

TEST_P(ClassifyAttentiveTest, PaddingGetsZeroWeight) {
  const ClassifyModelConfig& c = GetParam().cfg;
  ParamStore store(5);
  ClassifyModel m(c, kVocab, kLabels, store);
  const auto sents = toy_sentences();
  const SeqBatch b = pad_batch(sents, 0);
  Mat alpha;
  run_logits(m, b, &alpha);
  int masked = 0;
  ASSERT_NO_FATAL_FAILURE(test::expect_weights_on_real_steps(alpha, b, "sentence", &masked));
  EXPECT_GT(masked, 15);
  for (Index j = 0; j < b.size(); ++j) {   // each sentence alone: the same weights over its real positions
    Mat one;
    run_logits(m, pad_batch({sents[static_cast<size_t>(j)]}, 0), &one);
    ASSERT_EQ(one.cols(), static_cast<Index>(sents[static_cast<size_t>(j)].size()));
    for (Index t = 0; t < one.cols(); ++t) EXPECT_NEAR(one(0, t), alpha(j, t), 1e-6) << "sentence " << j;
  }
}

INSTANTIATE_TEST_SUITE_P(Poolings, ClassifyAttentiveTest, ::testing::ValuesIn(attentive_variants()),
                         [](const auto& info) { return info.param.name; });

TEST_P(ClassifyModelTest, OverfitsEightSentences) {
  ClassifyModelConfig c = GetParam().cfg;
  c.dropout = 0;
  c.self_attention.dropout = 0;
  ParamStore store(9);
  ClassifyModel m(c, kVocab, kLabels, store);
  const SeqBatch b = pad_batch(toy_sentences(), 0);
  const auto [first, last] = twin::test::adam_on_one_batch(
      store, 60, 0.02, [&](Graph& g, Rng& rng) { return m.loss(g, b, kToyLabels, rng); });
  const Mat lg = run_logits(m, b);
  int correct = 0;
  for (int k = 0; k < 8; ++k) {
    Index arg = 0;
    lg.row(k).maxCoeff(&arg);
    correct += arg == kToyLabels[static_cast<size_t>(k)];
  }
  EXPECT_EQ(correct, 8) << GetParam().name << ": loss " << first << " -> " << last;
  EXPECT_LT(last, first / 5);
}

INSTANTIATE_TEST_SUITE_P(Encoders, ClassifyModelTest, ::testing::ValuesIn(variants()),
                         [](const auto& info) { return info.param.name; });

TEST(ClassifyModel, ConfigErrorsAndFrozenEmbeddings) {
  ParamStore store;
  ClassifyModelConfig c = rnn_config("atr", false, "last");
  c.freeze_embeddings = true;
  ClassifyModel m(c, kVocab, kLabels, store);
  EXPECT_FALSE(m.embeddings().trainable);
  Graph g;
  Rng rng(1);
  EXPECT_THROW(m.loss(g, pad_batch(toy_sentences(), 0), Ids{0, 1}, rng), Error);
  EXPECT_THROW(m.loss(g, pad_batch({{3, 4}}, 0), Ids{kLabels}, rng), Error);
  ClassifyModelConfig s = sa_config("sinusoidal", "last");
  EXPECT_TRUE(contains(error_of([&] { ClassifyModel(s, kVocab, kLabels, store); }), "\"last\" needs the rnn"));
  c.cell.hidden = 0;
  EXPECT_TRUE(contains(error_of([&] { ClassifyModel(c, kVocab, kLabels, store); }), "hidden"));
  EXPECT_TRUE(contains(error_of([&] { ClassifyModel(rnn_config("atr", false, "last"), kVocab, 1, store); }),
                       "at least 2 labels"));
}

// ---- the memory analysis ----

ClassifyModelConfig memory_config(const std::string& cell, const std::string& output, int d = 16) {
  ClassifyModelConfig c = rnn_config(cell, false, "last", "additive", d);
  c.cell.output = *value_of(kCellOutputNames, output);
  c.cell.init_scale = 0.5;
  c.init_scale = 0.5;
  return c;
}

Ids random_sentence(Rng& rng, int n) {
  Ids s;
  for (int k = 0; k < n; ++k) s.push_back(static_cast<std::int32_t>(rng.uniform_int(1, kVocab - 1)));
  return s;
}

struct MemoryCase {
  std::string name, cell, output;
  bool input_tanh = false, coupled = false;
};

class ClassifyMemoryTest : public ::testing::TestWithParam<MemoryCase> {};

TEST_P(ClassifyMemoryTest, WeightsReproduceTheFinalState) {
  const MemoryCase& mc = GetParam();
  ClassifyModelConfig c = memory_config(mc.cell, mc.output);
  c.cell.input_tanh = mc.input_tanh;
  c.cell.coupled = mc.coupled;
  ASSERT_EQ(memory_unsupported_reason(c), "");
  ASSERT_TRUE(memory_is_exact(c));
  ParamStore store(21);
  ClassifyModel m(c, kVocab, kLabels, store);
  Rng rng(4);
  for (int n : {1, 2, 7, 30}) {
    const Ids s = random_sentence(rng, n);
    const MemoryWeights w = memory_weights(m, s);
    ASSERT_EQ(static_cast<int>(w.weights.size()), n);
    EXPECT_GT(w.final_state.norm(), 0);
    EXPECT_LE(w.rel_error, 1e-5) << mc.name << " length " << n;
    EXPECT_LE((w.reconstructed - w.final_state).cwiseAbs().maxCoeff(), 1e-5 * (1 + w.final_state.cwiseAbs().maxCoeff()));
    // h_T is the state the classifier reads ("last" pooling).
    Graph g(Mode::kInfer);
    Rng unused(0);
    EXPECT_LE((m.features(g, pad_batch({s}, 0), unused).val() - w.final_state).cwiseAbs().maxCoeff(), 1e-6);
    // The last token's weight is its input gate; every weight is in (0, 1); the last row of the by-step
    // matrix is the final-state weights; the matrix is lower triangular.
    EXPECT_NEAR(w.weights.back(), w.input_gate.back(), 1e-6);
    for (int k = 0; k < n; ++k) {
      EXPECT_GT(w.weights[static_cast<size_t>(k)], 0);
      EXPECT_LT(w.weights[static_cast<size_t>(k)], 1);
      EXPECT_NEAR(w.weights_by_step(n - 1, k), w.weights[static_cast<size_t>(k)], 1e-6);
      EXPECT_NEAR(w.weights_units.row(k).mean(), w.weights[static_cast<size_t>(k)], 1e-6);
      for (int t = 0; t < k; ++t) EXPECT_EQ(w.weights_by_step(t, k), 0);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cells, ClassifyMemoryTest,
                         ::testing::Values(MemoryCase{"atr", "atr", "default"},
                                           MemoryCase{"atr_identity", "atr", "identity"},
                                           MemoryCase{"atr_input_tanh", "atr", "identity", true, false},
                                           MemoryCase{"atr_coupled", "atr", "identity", false, true},
                                           MemoryCase{"lrn_identity", "lrn", "identity"}),
                         [](const auto& info) { return info.param.name; });

TEST(ClassifyMemory, TanhOutputIsOnlyApproximateAndOtherModelsAreRefused) {
  ClassifyModelConfig c = memory_config("lrn", "default");   // LRN's default output is tanh
  EXPECT_FALSE(memory_is_exact(c));
  EXPECT_EQ(memory_unsupported_reason(c), "");
  ParamStore store(21);
  ClassifyModel m(c, kVocab, kLabels, store);
  Rng rng(4);
  const MemoryWeights w = memory_weights(m, random_sentence(rng, 12));
  EXPECT_GT(w.rel_error, 1e-4) << "tanh squashes: the unrolled sum is not the state";
  EXPECT_TRUE(std::isfinite(w.rel_error));
  EXPECT_FALSE(memory_is_exact(memory_config("atr", "tanh")));

  EXPECT_TRUE(contains(memory_unsupported_reason(memory_config("gru", "default")), "twin-gated"));
  ClassifyModelConfig bi = memory_config("atr", "default");
  bi.bidirectional = true;
  EXPECT_TRUE(contains(memory_unsupported_reason(bi), "unidirectional"));
  EXPECT_TRUE(contains(memory_unsupported_reason(sa_config("sinusoidal", "mean")), "rnn encoder"));
  ParamStore s2;
  ClassifyModel g(memory_config("gru", "default"), kVocab, kLabels, s2);
  EXPECT_TRUE(contains(error_of([&] { memory_weights(g, {3, 4}); }), "twin-gated"));
}

}  // namespace
}  // namespace twin::classify
