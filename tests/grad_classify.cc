// Gradient checks (double) of the sentence classifiers' training loss (tasks/classify/classify_model.h), every
// parameter including the embeddings, on a padded batch: RNN encoders (uni- and bidirectional; cells with and
// without a memory) with last-state, masked-mean and attentive (additive and dot) pooling, and the self-attention
// block with sinusoidal, learned and relative positions under mean and attentive pooling.
#include <gtest/gtest.h>

#include "classify_model.h"
#include "data/batch.h"
#include "gradcheck.h"

namespace twin::classify {
namespace {

using twin::test::GradCheck;

void check_model(ClassifyModelConfig c) {
  c.embed = 4;
  c.cell.hidden = 3;
  c.cell.init_scale = 0.5;
  c.attn_dim = 2;
  c.dropout = 0;   // finite differences need a deterministic loss
  c.dropout_embed = 0;
  c.self_attention.dropout = 0;
  c.self_attention.heads = 2;
  c.self_attention.ff_dim = 5;
  c.self_attention.max_len = 6;
  c.self_attention.clip_k = 1;
  c.init_scale = 0.5;
  GradCheck gc;
  ParamStore store(11);
  ClassifyModel m(c, 8, 3, store);
  gc.also_perturb(store);
  const SeqBatch b = pad_batch(std::vector<Ids>{{1, 2, 3, 4}, {5}, {6, 7}}, 0);
  const Ids labels = {2, 0, 1};
  Rng rng(1);
  twin::test::GradCheckOptions o;
  o.scales = {1.0};
  gc.check([&](Graph& g) { return m.loss(g, b, labels, rng); }, o);
}

ClassifyModelConfig rnn(const std::string& cell, bool bi, const std::string& pooling,
                        const std::string& attention = "additive") {
  ClassifyModelConfig c;
  c.cell.type = cell;
  c.bidirectional = bi;
  c.pooling = *value_of(kPoolingNames, pooling);   // tests spell choices as in JSON
  c.attention = *value_of(kPoolScoreNames, attention);
  return c;
}

ClassifyModelConfig sa(const std::string& position, const std::string& pooling,
                       const std::string& attention = "additive", int layers = 1) {
  ClassifyModelConfig c;
  c.encoder = Encoder::kSelfAttention;
  c.self_attention.position = *value_of(kPositionEncodingNames, position);
  c.self_attention.layers = layers;
  c.pooling = *value_of(kPoolingNames, pooling);   // tests spell choices as in JSON
  c.attention = *value_of(kPoolScoreNames, attention);
  return c;
}

TEST(ClassifyGrad, AtrLast) { check_model(rnn("atr", false, "last")); }
TEST(ClassifyGrad, LrnLast) { check_model(rnn("lrn", false, "last")); }
TEST(ClassifyGrad, LstmBiLast) { check_model(rnn("lstm", true, "last")); }
TEST(ClassifyGrad, GruMean) { check_model(rnn("gru", false, "mean")); }
TEST(ClassifyGrad, SruBiMean) { check_model(rnn("sru", true, "mean")); }
TEST(ClassifyGrad, AtrBiAttentiveAdditive) { check_model(rnn("atr", true, "attentive")); }
TEST(ClassifyGrad, LstmAttentiveDot) { check_model(rnn("lstm", false, "attentive", "dot")); }
TEST(ClassifyGrad, SelfAttentionSinusoidalMean) { check_model(sa("sinusoidal", "mean")); }
TEST(ClassifyGrad, SelfAttentionLearnedAttentive) { check_model(sa("learned", "attentive")); }
TEST(ClassifyGrad, SelfAttentionRelativeAttentiveDotTwoLayers) { check_model(sa("relative", "attentive", "dot", 2)); }

}  // namespace
}  // namespace twin::classify
