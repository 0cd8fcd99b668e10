// Gradient checks (double) of the reading-comprehension R-Net's training loss (tasks/rc/rc_model.h) at tiny sizes,
// every parameter including the word vectors (unfrozen here) and the character embeddings, on a batch padded in
// both passage and question (and with padding words of no characters): character BiRNN, the 2-layer concatenated
// encoder, gated attention, self-matching, question pooling and the pointer network; cells without a memory (gru,
// atr) and with one (lstm, and lstm as the pointer cell too with cell_everywhere). Dropout off: finite differences
// need a deterministic loss. The layers alone (GatedDotAttention over a shorter memory, AttentionPooling) too.
#include <gtest/gtest.h>

#include "gradcheck.h"
#include "nn/attention_pooling.h"
#include "nn/gated_dot_attention.h"
#include "ops/ops.h"
#include "rc_model.h"
#include "rc_toy_batch.h"

namespace twin::rc {
namespace {

using twin::test::GradCheck;

void check_model(const std::string& cell, bool everywhere = false) {
  RcModelConfig c;
  c.word_dim = 3;
  c.char_dim = 2;
  c.char_hidden = 2;
  c.layers = 2;
  c.cell.type = cell;
  c.cell.hidden = 2;
  c.cell.init_scale = 0.5;
  c.cell_everywhere = everywhere;
  c.dropout = 0;
  c.ptr_dropout = 0;
  c.freeze_words = false;
  GradCheck gc;
  ParamStore store(13);
  RcModel m(c, 9, 6, store);
  Rng fill(3);
  init::uniform(Real(0.5))(m.word_embedding().table().value, fill);   // the word vectors start at zero
  gc.also_perturb(store);
  const RcBatch b = test::toy_batch({{2, 3, 4, 5}, {6, 7}}, {{3, 8}, {4, 6, 2}}, {{1, 2}, {0, 1}}, 3, 9, 6,
                                    /*extra_p=*/1, /*extra_q=*/0);
  Rng rng(1);
  twin::test::GradCheckOptions o;
  o.scales = {1.0};
  gc.check([&](Graph& g) { return m.summed_loss(g, b, rng, true); }, o);
}

TEST(RcGrad, ModelGru) { check_model("gru"); }
TEST(RcGrad, ModelAtr) { check_model("atr"); }
TEST(RcGrad, ModelLstm) { check_model("lstm"); }
TEST(RcGrad, ModelLstmEverywhere) { check_model("lstm", true); }

TEST(RcGrad, GatedDotAttentionOverAPaddedShorterMemory) {
  GradCheck gc;
  ParamStore store(5);
  GatedDotAttention att(store, "att", 3, 2, 2, init::uniform(Real(0.8)));
  gc.also_perturb(store);
  auto x = gc.input(4 * 2, 3), m = gc.input(3 * 2, 2);   // Tx = 4, Tm = 3, B = 2
  Mat mask(6, 1);
  mask << 1, 1, 1, 1, 0, 1;                              // sequence 0's memory has 2 real positions, sequence 1's 3
  Rng rng(1);
  twin::test::GradCheckOptions o;
  o.scales = {1.0};
  gc.check([&](Graph& g) { return att.apply(x.in(g), m.in(g), mask, 2, 0, rng); }, o);
}

TEST(RcGrad, AttentionPoolingMasked) {
  GradCheck gc;
  ParamStore store(6);
  AttentionPooling pool(store, "pool", 3, 2, init::uniform(Real(0.8)));
  gc.also_perturb(store);
  auto u = gc.input(3 * 2, 3);
  Mat mask(6, 1);
  mask << 1, 1, 1, 1, 0, 1;
  Rng rng(1);
  gc.check([&](Graph& g) { return pool.apply(u.in(g), mask, 2, 0, rng); });
}

}  // namespace
}  // namespace twin::rc
