// SRNN: the Elman network, Elman (1990), the baseline of the ATR paper's Eq. 1; row-vector convention:
//   a = x W + b                project_inputs   [T*B, H]
//   h = tanh(a + h_prev U)     one [H, H] GEMM per step
// Parameters: W [I,H], U [H,H], b [1,H].
//   expected_params = I·H + H² + H·[bias]
// Table 1 style counts: 2 weight matrices, 2 matrix transformations (as ATR). No gates.
#pragma once
#include "rnn/cell_util.h"

namespace twin {

class SrnnCell final : public CellBase {
 public:
  static constexpr CellOptSet kOptions = kEveryCellOptions;
  static CellTraits traits(const CellConfig&) { return {}; }
  SrnnCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope);
  int k() const override { return 1; }
  CellState step(Var a, const CellState& prev, GateRecord* rec = nullptr) const override {
    return {tanh(a + recurrent(prev)), {}};   // [B, H]
  }
  CellInfo info() const override { return {2, 2}; }
  Index expected_params() const override { return I() * H() + H() * H() + (b_ ? H() : 0); }
};

}  // namespace twin
