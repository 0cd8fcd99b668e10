// ATR: addition-subtraction twin-gated recurrent unit. Zhang, Xiong, Su, Lin, Zhang (EMNLP 2018),
// "Simplifying Neural Machine Translation with Addition-Subtraction Twin-Gated Recurrent Networks".
// Row-vector convention (the paper's W x is our x W):
//   p = x W (+ b)                  in project_inputs, all steps at once      [T*B, H]
//   q = h_prev U (+ d)             the only recurrent GEMM, [H, H]            [B, H]
//   i = σ(p + q)    f = σ(p − q)   (the paper prints p − q the other way round; the authors' README
//                                   corrects it: the gates are order-sensitive)
//   h = i ⊙ p + f ⊙ h_prev
// Variants seen in the authors' code (CellConfig):
//   output   "identity" (default, the paper) | "tanh": h = tanh(i ⊙ p + f ⊙ h_prev) (every ATR row of the
//            LRN paper). The README's third form, o = tanh(h) used only as the output while h stays linear,
//            is not offered: CellState has one h that is both state and output.
//   input_tanh   h = i ⊙ tanh(p) + f ⊙ h_prev
//   coupled      i = 1 − f
//   bias     "none" | "input" (default: b on p) | "recurrent" (d on q) | "both"
//            (the LRN repository's ATR has both; the paper's equations have none).
//   layer_norm  p = LN(x W; g_p, β_p), q = LN(h_prev U; g_q, β_q): both projections layer-normalised before
//            the gates, with learned gain and bias each [1,H], as the authors' NMT toolkit (Zero) does for its
//            RNN cells and as the ATR and LRN READMEs propose against an unbounded twin-gate state. The LN
//            biases take the place of b and d (bias must be "none" or left at its default).
// Deviation: none beyond the corrected forget-gate sign.
// Parameters: W [I,H], U [H,H], b [1,H] (bias input/both), d [1,H] (bias recurrent/both); with layer_norm
// W, U, ln_p_g, ln_p_b, ln_q_g, ln_q_b [1,H] each.
//   expected_params = I·H + H² + H·[bias ∈ {input, both}] + H·[bias ∈ {recurrent, both}] + 4H·[layer_norm]
// Table 1: 2 weight matrices, 2 matrix transformations. Gates recorded: "i", "f".
#pragma once
#include "rnn/cell_util.h"

namespace twin {

class AtrCell final : public CellBase {
 public:
  static constexpr CellOptSet kOptions =
      kEveryCellOptions | CellOptSet{CellOpt::kOutput, CellOpt::kInputTanh, CellOpt::kCoupled, CellOpt::kLayerNorm};
  static CellTraits traits(const CellConfig& cfg);
  AtrCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope);
  int k() const override { return 1; }
  CellState step(Var p, const CellState& prev, GateRecord* rec = nullptr) const override;
  CellInfo info() const override { return {2, 2}; }
  Index expected_params() const override;

 private:
  static constexpr Act kDefaultOutput = Act::kIdentity;   // the paper's form
  Act output_;
  bool input_tanh_, coupled_;
  Param* d_ = nullptr;   // the recurrent bias (b, the input one, is CellBase's)
  Param *ln_q_g_ = nullptr, *ln_q_b_ = nullptr;   // layer_norm on q (the one on p is CellBase's ln_g_, ln_b_)
};

}  // namespace twin
