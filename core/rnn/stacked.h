// Bidirectional and stacked RNNs on top of run_rnn (DESIGN §3.5). Both keep run_rnn's conventions:
// time-major [T*B, D] inputs, a [T*B, 1] mask (or empty), padding carries the state through unchanged.
#pragma once
#include <memory>
#include <vector>

#include "base/rng.h"
#include "rnn/rnn.h"

namespace twin {

struct BiSeqOut {
  Var h_all;         // [T*B, 2H]: [forward h_t ; backward h_t] per row
  CellState fwd;     // forward state after each sequence's last real step
  CellState bwd;     // backward state after step 0 (the whole sequence read right to left)
};

// Two independent cells (their own parameters) over the same input, outputs concatenated column-wise.
// The two cells may differ in hidden size; h_all is then [T*B, H_fwd + H_bwd].
BiSeqOut run_birnn(const Cell& fwd, const Cell& bwd, Var x, const Mat& mask, Index batch, CellState fwd_init = {},
                   CellState bwd_init = {});

// The cell config of layer `layer` (0 = bottom) of a stack of `layers`: cfg itself, except HGRN's forget-gate lower
// bound, which rises with depth as the HGRN paper's learned bounds do: γ·layer/(layers − 1), 0 at the bottom and
// cfg.forget_lower_bound γ at the top (a single layer keeps γ).
CellConfig layer_cell_config(const CellConfig& cfg, int layer, int layers);

struct StackedOut {
  Var h_all;                     // [T*B, H_last]: the top layer's outputs
  std::vector<CellState> last;   // one final state per layer, bottom first
};

// layers[l] reads layer l-1's outputs (layer 0 reads x). init: empty (zeros everywhere) or one state per
// layer ({} entries mean zeros). With dropout p > 0 (training graphs only), dropout(·, p, rng) is applied
// to each layer's outputs before the next layer reads them; never to the top layer's outputs (the caller
// decides about the output layer).
StackedOut run_stacked(const std::vector<const Cell*>& layers, Var x, const Mat& mask, Index batch, Dir dir,
                       const std::vector<CellState>& init = {});
StackedOut run_stacked(const std::vector<const Cell*>& layers, Var x, const Mat& mask, Index batch, Dir dir,
                       const std::vector<CellState>& init, Real dropout_p, Rng& rng);

}  // namespace twin
