// minGRU: Feng, Tung, Ahmed, Bengio, Hajimirsadeghi (2024), "Were RNNs All We Needed?" (arXiv:2410.01201),
// Section 3.1; reference code BorealisAI/minRNNs models/minRNNs.py, class minGRU. A GRU whose gates do not read
// h_{t-1} and whose candidate has no tanh; row-vector convention:
//   [a_z p_h] = x [W_z W_h] + [b_z b_h]            project_inputs, one GEMM                 [T*B, 2H]
//   z = σ(a_z)          h̃ = g(p_h)                  (both from x alone)
//   h = (1 − z) ⊙ h_prev + z ⊙ h̃                    computed as h̃ + (1 − z) ⊙ (h_prev − h̃), a gated linear
//                                                   recurrence: one fused scan per sequence (linear_recurrence.h)
// g (cfg.candidate): the reference code's g (default; x + 1/2 for x >= 0, σ(x) below: positive, for the paper's
// log-space scan), tanh, or the identity. The reference code orders its projection [hidden | gate]; ours is
// [z | h̃]. Not part of the cell: the reference block's output projection (to_out), its expansion factor and its
// learned initial state (h_0 is the task's, zeros by default, as the reference code's without one).
// Parameters: W [I,2H], b [1,2H] (bias default), or W alone (bias none).
//   expected_params = 2·I·H + 2·H·[bias]
// Table 1 style counts: 2 weight matrices, 2 matrix transformations, none of them recurrent.
// Gates recorded: "i" = z and "f" = 1 − z (h = i ⊙ h̃ + f ⊙ h_prev: with g = identity or tanh the cell is twin-gated
// in CellTraits' sense, with v = h̃).
#pragma once
#include "rnn/linear_recurrence.h"

namespace twin {

class MinGruCell final : public LinearRecurrenceCell {
 public:
  static constexpr CellOptSet kOptions = kEveryCellOptions | CellOptSet{CellOpt::kCandidate};
  static CellTraits traits(const CellConfig& cfg);
  MinGruCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope);
  int k() const override { return 2; }
  CellInfo info() const override { return {2, 2}; }
  Index expected_params() const override { return 2 * I() * H() + (b_ ? 2 * H() : 0); }

 protected:
  Coefficients coefficients(Var xp, bool record) const override;

 private:
  CellCandidate candidate_;
};

}  // namespace twin
