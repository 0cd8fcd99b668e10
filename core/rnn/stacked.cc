#include "rnn/stacked.h"

#include "ops/ops.h"

namespace twin {

BiSeqOut run_birnn(const Cell& fwd, const Cell& bwd, Var x, const Mat& mask, Index batch, CellState fwd_init,
                   CellState bwd_init) {
  SeqOut f = run_rnn(fwd, x, mask, batch, Dir::kForward, fwd_init);
  SeqOut b = run_rnn(bwd, x, mask, batch, Dir::kBackward, bwd_init);
  return {concat_cols({f.h_all, b.h_all}), f.last, b.last};   // [T*B, H_f + H_b]
}

CellConfig layer_cell_config(const CellConfig& cfg, int layer, int layers) {
  TW_CHECK(layers >= 1 && layer >= 0 && layer < layers, "layer_cell_config: layer ", layer, " of ", layers);
  CellConfig c = cfg;
  if (layers > 1) c.forget_lower_bound = cfg.forget_lower_bound * layer / (layers - 1);
  return c;
}

namespace {
StackedOut stacked_impl(const std::vector<const Cell*>& layers, Var x, const Mat& mask, Index batch, Dir dir,
                        const std::vector<CellState>& init, Real p, Rng* rng) {
  TW_CHECK(!layers.empty(), "run_stacked: no layers");
  TW_CHECK(init.empty() || init.size() == layers.size(), "run_stacked: ", init.size(), " initial states for ",
           layers.size(), " layers");
  StackedOut out;
  Var in = x;
  for (size_t l = 0; l < layers.size(); ++l) {
    TW_CHECK(layers[l] != nullptr, "run_stacked: layer ", l, " is null");
    if (l > 0 && rng && p > 0) in = dropout(in, p, *rng);
    SeqOut s = run_rnn(*layers[l], in, mask, batch, dir, init.empty() ? CellState{} : init[l]);
    out.last.push_back(s.last);
    in = s.h_all;   // [T*B, H_l]
  }
  out.h_all = in;
  return out;
}
}  // namespace

StackedOut run_stacked(const std::vector<const Cell*>& layers, Var x, const Mat& mask, Index batch, Dir dir,
                       const std::vector<CellState>& init) {
  return stacked_impl(layers, x, mask, batch, dir, init, 0, nullptr);
}

StackedOut run_stacked(const std::vector<const Cell*>& layers, Var x, const Mat& mask, Index batch, Dir dir,
                       const std::vector<CellState>& init, Real dropout_p, Rng& rng) {
  TW_CHECK(dropout_p >= 0 && dropout_p < 1, "run_stacked: dropout must be in [0, 1), got ", dropout_p);
  return stacked_impl(layers, x, mask, batch, dir, init, dropout_p, &rng);
}

}  // namespace twin
