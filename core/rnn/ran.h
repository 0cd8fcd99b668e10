// RAN: recurrent additive network, Lee, Levy & Zettlemoyer (2017), "Recurrent Additive Networks";
// row-vector convention:
//   [a_i a_f c̃] = x [W_i W_f W_c] + [b_i b_f 0]     project_inputs, one GEMM   [T*B, 3H]
//   [s_i s_f] = h_prev [U_i U_f]                     one [H, 2H] GEMM per step
//   i = σ(a_i + s_i)     f = σ(a_f + s_f)
//   c = i ⊙ c̃ + f ⊙ c_prev         h = g(c),  g = tanh (default) | identity (cfg.output)
// c̃ has no bias, as in the paper (the bias only covers the gate columns).
// layer_norm: the whole [T*B, 3H] input projection goes through one layer norm (gain, bias [1,3H]),
// as the LRN authors' `linear(..., ln=True)` does; the LN bias then replaces b.
// content = "identity" is Lee et al.'s simplest RAN, c̃ = x (only when I == H): W is [I,2H] and the
// projection is [x W_i, x W_f, x]. That is the RAN of the ATR paper's Table 1 (4 weight matrices, 4
// transformations). The default "linear" keeps W_c (needed when I != H, e.g. NMT with 620-d embeddings
// and 1000-d states): 5 and 5.
// Parameters: W [I,kH] (k = 3 linear, 2 identity), U [H,2H], b [1,2H] (no LN); with LN: ln_g, ln_b [1,kH].
//   expected_params = k·I·H + 2·H² + (layer_norm ? 2·k·H : 2·H·[bias])
// Gates recorded: "i", "f". With g = identity and c_0 = 0, c_t = Σ_k i_k ⊙ Π_{l>k} f_l ⊙ c̃_k (gates.h).
#pragma once
#include "rnn/cell_util.h"

namespace twin {

class RanCell final : public CellBase {
 public:
  static constexpr CellOptSet kOptions =
      kEveryCellOptions | CellOptSet{CellOpt::kOutput, CellOpt::kLayerNorm, CellOpt::kContent};
  // Not twin-gated in CellTraits' sense: the gated sum is the memory c, and h = g(c).
  static CellTraits traits(const CellConfig& cfg) {
    return {.output = output_of(parse_output(cfg, kDefaultOutput)), .has_memory = true};
  }
  RanCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope);
  int k() const override { return 3; }
  bool has_memory() const override { return true; }
  Var project_inputs(Var x) const override;
  CellState step(Var a, const CellState& prev, GateRecord* rec = nullptr) const override;
  CellInfo info() const override { return identity_content_ ? CellInfo{4, 4} : CellInfo{5, 5}; }
  Index expected_params() const override;

 private:
  static constexpr Act kDefaultOutput = Act::kTanh;
  Act output_;
  bool identity_content_ = false;
};

}  // namespace twin
