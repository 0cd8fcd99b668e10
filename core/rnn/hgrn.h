// HGRN, real-valued: Qin, Yang, Zhong (NeurIPS 2023), "Hierarchically Gated Recurrent Neural Network for Sequence
// Modeling", Section 3 (the HGRU token mixer); the first author's code Doraemonzzz/hgru-pytorch, hgru/hgru1d.py
// (Hgru1d, the paper's complex HGRU) and hgru/hgrureal1d.py (HgruRealV6, its real-valued form, which this follows).
// A gated linear recurrence whose forget gate has a lower bound γ; row-vector convention:
//   [a_μ p_c a_g] = x [W_μ W_c W_g] + [b_μ b_c b_g]   project_inputs, one GEMM                 [T*B, 3H]
//   μ = σ(a_μ)       λ = γ + (1 − γ) ⊙ μ            the forget gate, in [γ, 1)
//   c̃ = SiLU(p_c) = p_c ⊙ σ(p_c)                     the input
//   s = λ ⊙ s_prev + (1 − λ) ⊙ c̃                    (the paper's h_t; real-valued: no rotation θ), computed as
//                                                    c̃ + λ ⊙ (s_prev − c̃): one fused scan per sequence
//   o = s ⊙ SiLU(a_g)                               the output gate (the code's act_fun "silu" on both c̃ and g)
// CellState: c = s (the recurrent state), h = o (what the next layer reads). Not part of the cell: the layer's
// LayerNorm on s before the gate and its output projection (the tasks' own layers follow the cell), and the GLU
// channel mixer of an HGRN block.
// The lower bound: the paper learns one per layer, γ^k = [cumsum(softmax(Γ, over layers))]_k minus the first, so it
// is 0 in the bottom layer and rises with depth (at initialisation γ^k = k/L). Here it is a fixed setting,
// forget_lower_bound (0 <= γ < 1, default 0: no bound); in a stack of L > 1 layers (the LM) layer k gets γ·k/(L − 1),
// 0 at the bottom and γ at the top (layer_cell_config, rnn/stacked.h); a single layer gets γ.
// Parameters: W [I,3H], b [1,3H] (bias default).
//   expected_params = 3·I·H + 3·H·[bias]
// Table 1 style counts: 3 weight matrices, 3 matrix transformations, none of them recurrent. Memory: c (= s).
// Gates recorded: "f" (= λ; the output gate SiLU(a_g) is not a [0, 1] gate and is not recorded).
#pragma once
#include "rnn/linear_recurrence.h"

namespace twin {

class HgrnCell final : public LinearRecurrenceCell {
 public:
  static constexpr CellOptSet kOptions = kEveryCellOptions | CellOptSet{CellOpt::kForgetLowerBound};
  static CellTraits traits(const CellConfig&) { return {.has_memory = true}; }
  HgrnCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope);
  int k() const override { return 3; }
  bool has_memory() const override { return true; }
  CellInfo info() const override { return {3, 3}; }
  Index expected_params() const override { return 3 * I() * H() + (b_ ? 3 * H() : 0); }

 protected:
  Coefficients coefficients(Var xp, bool record) const override;
  Var readout(Var xp, Var s, Var g) const override;

 private:
  Real gamma_;   // γ, the forget gate's lower bound
};

}  // namespace twin
