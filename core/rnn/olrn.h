// oLRN: LRN with an output gate, Zhang & Sennrich (ACL 2019), in the form of the authors' NMT toolkit
// (bzhangGo/zero, rnns/olrn.py); row-vector convention:
//   [q k v s] = x [W_q W_k W_v W_s] + b             project_inputs, one GEMM   [T*B, 4H]
//   i = σ(k + h_prev)      f = σ(q − h_prev)        (no recurrent GEMM)
//   c = i ⊙ v + f ⊙ h_prev
//   o = σ(s − c)                                    the output gate is twin-gated against c as well
//   h = o ⊙ g(c),   g = identity (default, the authors' code) | tanh (cfg.output)
// The carried state is h itself (no separate memory): the authors feed the gated output back into
// i, f and the f ⊙ h_prev term. We chose this exact form over "o = σ(x W_o + b_o), c carried as memory"
// because it is what produced the paper's oLRN numbers.
// layer_norm: one layer norm over the whole [T*B, 4H] projection (gain, bias [1,4H]) replaces b.
// Parameters: W [I,4H], b [1,4H] (no LN), or W, ln_g [1,4H], ln_b [1,4H] (LN).
//   expected_params = 4·I·H + (layer_norm ? 8·H : 4·H·[bias])
// Table 1 style counts: 4 weight matrices, 4 matrix transformations. Gates recorded: "i", "f", "o".
#pragma once
#include "rnn/cell_util.h"

namespace twin {

class OlrnCell final : public CellBase {
 public:
  static constexpr CellOptSet kOptions = kEveryCellOptions | CellOptSet{CellOpt::kOutput, CellOpt::kLayerNorm};
  // Not twin-gated in CellTraits' sense: h = o ⊙ g(c) is what the recurrence carries, not c.
  static CellTraits traits(const CellConfig& cfg) { return {.output = output_of(parse_output(cfg, kDefaultOutput))}; }
  OlrnCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope);
  int k() const override { return 4; }
  CellState step(Var qkvs, const CellState& prev, GateRecord* rec = nullptr) const override;
  CellInfo info() const override { return {4, 4}; }
  Index expected_params() const override;

 private:
  static constexpr Act kDefaultOutput = Act::kIdentity;   // the authors' code
  Act output_;
};

}  // namespace twin
