// T-GRU: transition GRU, Meng & Zhang (AAAI 2019, DTMT): a GRU with no input, used for the extra
// transitions inside one deep-transition step; row-vector convention:
//   [s_z s_r s_h] = h_prev [W_hz W_hr W_hh] + b      one [H, 3H] GEMM per step, no input projection
//   z = σ(s_z)     r = σ(s_r)     h̃ = tanh(r ⊙ s_h)
//   h = (1 − z) ⊙ h_prev + z ⊙ h̃
// k() == 0: the driver passes an invalid Var as xp_t. Registered on its own as "tgru" it ignores its input
// (input_dim is kept only so run_rnn can check x's width).
// Deviation: biases (the paper's equations omit them); b_h sits inside r ⊙ (.) because it rides on the GEMM.
// Parameters: U [H,3H], b [1,3H].
//   expected_params = 3·H² + 3·H·[bias]
// Table 1 style counts: 3 weight matrices, 3 matrix transformations. Gates recorded: "z", "r".
// The gate math after the recurrent product is one fused node, tgru_cell (ops/fused_cells.h).
#pragma once
#include "rnn/cell_util.h"

namespace twin {

class TgruCell final : public CellBase {
 public:
  static constexpr CellOptSet kOptions = kEveryCellOptions;
  static CellTraits traits(const CellConfig&) { return {}; }
  TgruCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope);
  int k() const override { return 0; }
  Var project_inputs(Var x) const override { return {}; }
  CellState step(Var unused, const CellState& prev, GateRecord* rec = nullptr) const override;
  CellInfo info() const override { return {3, 3}; }
  Index expected_params() const override { return 3 * H() * H() + (b_ ? 3 * H() : 0); }
};

}  // namespace twin
