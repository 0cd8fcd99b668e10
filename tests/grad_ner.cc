// Gradient checks (double) of the NER model's training loss (tasks/ner/ner_model.h), every parameter included:
// the character BiRNN per word (its final states gathered into the word slots with a zero row at padding),
// the word BiRNN and the CRF (NLL and hinge), on a batch of sentences of lengths 3, 1 and 2 whose words have
// 1 to 4 characters, for cells with and without a memory.
#include <gtest/gtest.h>

#include "gradcheck.h"
#include "ner_model.h"

namespace twin::ner {
namespace {

using twin::test::GradCheck;

NerBatch hand_batch() {
  NerBatch b;
  // Time-major slots t*B + b for B = 3: sentence 0 has words at t = 0, 1, 2; sentence 1 at t = 0; sentence 2
  // at t = 0, 1. Real words in slot order: (0,0) (0,1) (0,2) (1,0) (1,2) (2,0) -> rows 0..5; padding -> row 6.
  b.words = pad_batch(std::vector<Ids>{{1, 2, 3}, {4}, {5, 1}}, 0);
  b.chars = pad_batch(std::vector<Ids>{{1, 2}, {3}, {2, 4, 1}, {1, 1, 2, 3}, {4, 2}, {3, 1}}, 0);
  b.slot_rows = {0, 1, 2, 3, 6, 4, 5, 6, 6};
  b.gold = {{1, 0, 2}, {3}, {2, 2}};
  return b;
}

void check_model(const std::string& cell, const std::string& objective) {
  NerModelConfig c;
  c.word_embed = 3;
  c.char_embed = 2;
  c.char_cell.type = cell;
  c.char_cell.hidden = 2;
  c.char_cell.init_scale = 0.5;
  c.cell.type = cell;
  c.cell.hidden = 3;
  c.cell.init_scale = 0.5;
  c.init_scale = 0.5;
  c.dropout = 0;   // finite differences need a deterministic loss
  c.objective = *value_of(kCrfObjectiveNames, objective);
  GradCheck gc;
  ParamStore store(13);
  NerModel m(c, 6, 5, 4, store);
  for (auto& p : store.all())   // the CRF tables start at 0: give the check non-trivial transitions
    if (p->name.find("/crf/") != std::string::npos) p->value.setRandom();
  gc.also_perturb(store);
  const NerBatch b = hand_batch();
  Rng rng(1);
  twin::test::GradCheckOptions o;
  o.scales = {1.0};
  gc.check([&](Graph& g) { return m.loss(g, b, rng); }, o);
}

TEST(NerGrad, AtrNll) { check_model("atr", "nll"); }
TEST(NerGrad, LstmNll) { check_model("lstm", "nll"); }
TEST(NerGrad, GruNll) { check_model("gru", "nll"); }
TEST(NerGrad, LrnNll) { check_model("lrn", "nll"); }

}  // namespace
}  // namespace twin::ner
