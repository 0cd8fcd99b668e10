// L-GRU: linear-transformation-enhanced GRU, Meng & Zhang (AAAI 2019), "DTMT: A Novel Deep Transition
// Architecture for Neural Machine Translation"; row-vector convention:
//   [a_z a_r a_l a_h H(x)] = x [W_xz W_xr W_xl W_xh W_x] + [b_z b_r b_l b_h 0]   one GEMM   [T*B, 5H]
//   [s_z s_r s_l s_h] = h_prev [W_hz W_hr W_hl W_hh]                            one [H, 4H] GEMM
//   z = σ(a_z + s_z)    r = σ(a_r + s_r)    l = σ(a_l + s_l)
//   h̃ = tanh(a_h + r ⊙ s_h) + l ⊙ H(x)             H(x) = x W_x is linear (unbiased)
//   h = (1 − z) ⊙ h_prev + z ⊙ h̃
// Deviation: gate biases (the paper's equations omit them); none on H(x).
// Parameters: W [I,5H], U [H,4H], b [1,4H].
//   expected_params = 5·I·H + 4·H² + 4·H·[bias]
// Table 1 style counts: 9 weight matrices, 9 matrix transformations. Gates recorded: "z", "r", "l".
// The gate math after the recurrent product is one fused node, lgru_cell (ops/fused_cells.h).
#pragma once
#include "rnn/cell_util.h"

namespace twin {

class LgruCell final : public CellBase {
 public:
  static constexpr CellOptSet kOptions = kEveryCellOptions;
  static CellTraits traits(const CellConfig&) { return {}; }
  LgruCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope);
  int k() const override { return 5; }
  CellState step(Var a, const CellState& prev, GateRecord* rec = nullptr) const override;
  CellInfo info() const override { return {9, 9}; }
  Index expected_params() const override;
};

}  // namespace twin
