// Gradient checks (double) of the NMT models: RNNSearch's whole training loss through the bidirectional and
// context-aware encoders, the initial state, additive attention, the two-level decoder, the deep-output
// readout and the (label-smoothed) cross-entropy, for a cell with and one without a memory, DTMT's
// deep-transition cell, padded batches; and DTMT's (model.kind dtmt): deep-transition encoder, query
// transition, multi-head additive attention, decoder transition, with L-GRU, GRU (no H(x)) and ATR first cells.
#include <gtest/gtest.h>

#include "corpus/nmt_data.h"
#include "gradcheck.h"
#include "model/nmt_model.h"
#include "ops/ops.h"

namespace twin::nmt {
namespace {

using twin::test::GradCheck;

Parallel toy_pairs() {
  Parallel p;
  p.src = {{4, 5, 6, kEos}, {7, kEos}, {5, 5, kEos}};   // different lengths: padding in both directions
  p.tgt = {{6, 4, kEos}, {8, 9, 5, kEos}, {kEos}};
  return p;
}

void check_model(NmtModelConfig c, int hidden = 3) {
  c.embed = 3;
  c.cell.hidden = hidden;
  c.init_scale = 0.5;
  c.cell.init_scale = 0.5;
  GradCheck gc;
  ParamStore store(11);
  std::unique_ptr<NmtModel> model = make_nmt_model(c, 10, 10, store);
  const NmtModel& m = *model;
  gc.also_perturb(store);
  const NmtBatch b = make_nmt_batch(toy_pairs(), {0, 1, 2});
  Rng rng(1);
  twin::test::GradCheckOptions o;
  o.scales = {1.0};
  gc.check([&](Graph& g) { return m.loss(g, b, rng, c.label_smoothing); }, o);
}

TEST(NmtGrad, RnnSearchAtrBidi) {
  NmtModelConfig c;
  c.cell.type = "atr";
  check_model(c);
}

TEST(NmtGrad, RnnSearchLstmContextAwareTiedSmoothed) {
  NmtModelConfig c;
  c.cell.type = "lstm";
  c.encoder = NmtEncoder::kCa;
  c.tie_target = true;
  c.label_smoothing = 0.1;
  check_model(c);
}

TEST(NmtGrad, RnnSearchGruDeepResidual) {
  NmtModelConfig c;
  c.cell.type = "gru";
  c.encoder_layers = 2;
  c.decoder_layers = 2;
  check_model(c);
}

// DTMT (Meng & Zhang 2019): the deep-transition cell (L-GRU + T-GRU) as encoder and both decoder levels.
TEST(NmtGrad, RnnSearchDeepTransitionCell) {
  NmtModelConfig c;
  c.cell.type = "dt";
  c.cell.transitions = 2;
  check_model(c);
}

// DTMT at tiny sizes: H = 4, 2 heads over A = 4 and the annotations' 2H = 8, every depth > 1 somewhere.
NmtModelConfig dtmt_config(const std::string& first_cell) {
  NmtModelConfig c;
  c.kind = NmtKind::kDtmt;
  c.cell.type = first_cell;
  c.dtmt.encoder_transitions = 2;
  c.dtmt.query_transitions = 1;
  c.dtmt.decoder_transitions = 2;
  c.dtmt.heads = 2;
  return c;
}

TEST(NmtGrad, DtmtLgruTwoHeads) { check_model(dtmt_config("lgru"), 4); }

TEST(NmtGrad, DtmtWithoutLinearTransformTiedSmoothed) {
  NmtModelConfig c = dtmt_config("lgru");
  c.dtmt.linear_transform = false;   // the first cells are GRUs
  c.tie_target = true;
  c.label_smoothing = 0.1;
  check_model(c, 4);
}

TEST(NmtGrad, DtmtAtrFirstCellOneHead) {
  NmtModelConfig c = dtmt_config("atr");
  c.dtmt.heads = 1;
  check_model(c, 4);
}

}  // namespace
}  // namespace twin::nmt
