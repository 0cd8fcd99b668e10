// minLSTM: Feng, Tung, Ahmed, Bengio, Hajimirsadeghi (2024), "Were RNNs All We Needed?" (arXiv:2410.01201),
// Section 3.2; reference code BorealisAI/minRNNs models/minRNNs.py, class minLSTM. An LSTM whose gates do not read
// h_{t-1}, without output gate or cell/hidden split; row-vector convention:
//   [a_f a_i p_h] = x [W_f W_i W_h] + [b_f b_i b_h]   project_inputs, one GEMM                [T*B, 3H]
//   f = σ(a_f)      i = σ(a_i)      h̃ = g(p_h)        (all from x alone)
//   normalize_gates (default, the paper's): f' = f / (f + i), i' = i / (f + i) = 1 − f', computed stably as the
//            reference code's log-space form does, f' = σ(softplus(−a_i) − softplus(−a_f));
//            h = f' ⊙ h_prev + i' ⊙ h̃ = h̃ + f' ⊙ (h_prev − h̃)
//   without: h = f ⊙ h_prev + i ⊙ h̃        (the paper's ablation; the reference code's use_coeff_norm = False).
//            With g = identity this is LRN (lrn.h, output identity) with h_{t-1} taken out of its gates: the pair
//            the suite compares.
// Both are gated linear recurrences: one fused scan per sequence (linear_recurrence.h).
// g (cfg.candidate): the reference code's g (default; x + 1/2 for x >= 0, σ(x) below), tanh, or the identity.
// forget_bias: added to b_f at initialisation (the reference code's forget_bias_init_scale). The reference code
// orders its projection [hidden | forget | input]; ours is [f | i | h̃]. Not part of the cell: the reference
// block's output projection, expansion factor and learned initial state.
// Parameters: W [I,3H], b [1,3H] (bias default), or W alone (bias none).
//   expected_params = 3·I·H + 3·H·[bias]
// Table 1 style counts: 3 weight matrices, 3 matrix transformations, none of them recurrent.
// Gates recorded: "f", "i" (f', i' when normalised): h = i ⊙ h̃ + f ⊙ h_prev, twin-gated (v = h̃) when g is the
// identity or tanh.
#pragma once
#include "rnn/linear_recurrence.h"

namespace twin {

class MinLstmCell final : public LinearRecurrenceCell {
 public:
  static constexpr CellOptSet kOptions =
      kEveryCellOptions | CellOptSet{CellOpt::kCandidate, CellOpt::kNormalizeGates, CellOpt::kForgetBias};
  static CellTraits traits(const CellConfig& cfg);
  MinLstmCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope);
  int k() const override { return 3; }
  CellInfo info() const override { return {3, 3}; }
  Index expected_params() const override { return 3 * I() * H() + (b_ ? 3 * H() : 0); }

 protected:
  Coefficients coefficients(Var xp, bool record) const override;

 private:
  CellCandidate candidate_;
  bool normalize_;
};

}  // namespace twin
