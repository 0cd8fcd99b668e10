// Gradient checks (double) of the SNLI models' training loss (tasks/snli/snli_model.h), every parameter
// including the embeddings, on a batch padded on both sides: "cond" (bidirectional premise encoder, masked
// mean initial state, additive attention, the two-level hypothesis reader carried through padding) and
// "wbw" (Rocktäschel et al. 2016: conditional encoding, word-by-word attention with r_t carried through
// padding, h* = tanh(r_N W^p + h_N W^x)), for cells with and without a memory; and both kinds with the
// exact-match feature (cells reading [e_t ; em_t], the batch below has matching words in pairs 1 and 2).
#include <gtest/gtest.h>

#include "data/batch.h"
#include "gradcheck.h"
#include "snli_model.h"

namespace twin::snli {
namespace {

using twin::test::GradCheck;

void check_model(const std::string& kind, const std::string& cell, bool exact_match = false) {
  SnliModelConfig c;
  c.kind = *value_of(kSnliKindNames, kind);
  c.exact_match = exact_match;
  c.embed = 3;
  c.cell.type = cell;
  c.cell.hidden = 3;
  c.attn_dim = 2;
  c.dropout = 0;   // finite differences need a deterministic loss
  c.init_scale = 0.5;
  c.cell.init_scale = 0.5;
  GradCheck gc;
  ParamStore store(11);
  SnliModel m(c, 8, store);
  gc.also_perturb(store);
  const SeqBatch p = pad_batch(std::vector<Ids>{{1, 2, 3}, {4}, {5, 6}}, 0);
  const SeqBatch h = pad_batch(std::vector<Ids>{{7}, {2, 3, 4}, {6, 5}}, 0);
  const Ids labels = {2, 0, 1};
  Rng rng(1);
  twin::test::GradCheckOptions o;
  o.scales = {1.0};
  gc.check([&](Graph& g) { return m.loss(g, p, h, labels, rng); }, o);
}

TEST(SnliGrad, CondAtr) { check_model("cond", "atr"); }
TEST(SnliGrad, CondLstm) { check_model("cond", "lstm"); }
TEST(SnliGrad, CondGru) { check_model("cond", "gru"); }
TEST(SnliGrad, WbwAtr) { check_model("wbw", "atr"); }
TEST(SnliGrad, WbwLstm) { check_model("wbw", "lstm"); }
TEST(SnliGrad, WbwGru) { check_model("wbw", "gru"); }
TEST(SnliGrad, CondAtrExactMatch) { check_model("cond", "atr", true); }
TEST(SnliGrad, WbwAtrExactMatch) { check_model("wbw", "atr", true); }

}  // namespace
}  // namespace twin::snli
