// LRN: lightweight recurrent network, Zhang & Sennrich (ACL 2019), "A Lightweight Recurrent Network for
// Sequence Modeling"; row-vector convention:
//   [q k v] = x [W_q W_k W_v] + b                  project_inputs, one GEMM   [T*B, 3H]
//   i = σ(k + h_prev)      f = σ(q − h_prev)      (no recurrent GEMM: the step is elementwise)
//   h = g(i ⊙ v + f ⊙ h_prev),   g = tanh (default, the LRN repository) | identity (the authors' NMT toolkit)
// layer_norm: the whole [T*B, 3H] projection goes through one layer norm (gain, bias [1,3H]), as the
// authors' `linear(x, 3d, ln=True)` does; the LN bias replaces b. (The authors use an RMS norm with a
// scale only; ours is the standard layer norm of ops/layer_norm.h.)
// Parameters: W [I,3H], b [1,3H] (no LN), or W, ln_g [1,3H], ln_b [1,3H] (LN).
//   expected_params = 3·I·H + (layer_norm ? 6·H : 3·H·[bias])
// Table 1 style counts: 3 weight matrices, 3 matrix transformations, none of them recurrent.
// Gates recorded: "i", "f". With g = identity and h_0 = 0: h_t = Σ_k i_k ⊙ Π_{l=k+1..t} f_l ⊙ v_k (gates.h).
#pragma once
#include "rnn/cell_util.h"

namespace twin {

class LrnCell final : public CellBase {
 public:
  static constexpr CellOptSet kOptions = kEveryCellOptions | CellOptSet{CellOpt::kOutput, CellOpt::kLayerNorm};
  static CellTraits traits(const CellConfig& cfg);
  LrnCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope);
  int k() const override { return 3; }
  CellState step(Var qkv, const CellState& prev, GateRecord* rec = nullptr) const override;
  CellInfo info() const override { return {3, 3}; }
  Index expected_params() const override;

 private:
  static constexpr Act kDefaultOutput = Act::kTanh;   // the LRN repository's cell
  Act output_;
};

}  // namespace twin
