// RAN: recurrent additive network, Lee, Levy & Zettlemoyer (2017), "Recurrent Additive Networks";
// row-vector convention:
//   [a_i a_f c̃] = x [W_i W_f W_c] + [b_i b_f 0]     project_inputs, one GEMM   [T*B, 3H]
//   [s_i s_f] = h_prev [U_i U_f]                     one [H, 2H] GEMM per step
//   i = σ(a_i + s_i)     f = σ(a_f + s_f)
//   c = i ⊙ c̃ + f ⊙ c_prev         h = g(c),  g = tanh (default) | identity (cfg.output)
// c̃ has no bias, as in the paper (the bias only covers the gate columns).
// layer_norm: the whole [T*B, 3H] input projection goes through one layer norm (gain, bias [1,3H]),
// as the LRN authors' `linear(..., ln=True)` does; the LN bias then replaces b.
// Table 1 of the ATR paper counts 4 weight matrices for "the simplest RAN", whose content layer is the
// input itself (c̃ = x, possible only when I == H). Ours keeps W_c (the equations we were asked to
// implement, and needed when I != H), so info() reports 5 weight matrices / 5 transformations.
// Parameters: W [I,3H], U [H,2H], b [1,2H] (no LN); with LN: W, U, ln_g [1,3H], ln_b [1,3H].
//   expected_params = 3·I·H + 2·H² + (layer_norm ? 6·H : 2·H·[bias])
// Gates recorded: "i", "f". With g = identity and c_0 = 0, c_t = Σ_k i_k ⊙ Π_{l>k} f_l ⊙ c̃_k (gates.h).
#pragma once
#include "rnn/cell_util.h"

namespace twin {

class RanCell final : public CellBase {
 public:
  RanCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope);
  int k() const override { return 3; }
  bool has_memory() const override { return true; }
  Var project_inputs(Var x) const override;
  CellState step(Var a, const CellState& prev, GateRecord* rec = nullptr) const override;
  CellInfo info() const override { return {5, 5}; }
  Index expected_params() const override;

 private:
  Act output_;
  Param* w_;
  Param* u_;
  Param* b_ = nullptr;
  Param* ln_g_ = nullptr;
  Param* ln_b_ = nullptr;
};

}  // namespace twin
