// IndRNN: Li, Li, Cook, Zhu, Gao (CVPR 2018), "Independently Recurrent Neural Network (IndRNN): Building A Longer
// and Deeper RNN", Eq. (2); the authors' code Sunnydreamrain/IndRNN_pytorch (IndRNN_onlyrecurrent.py and its README).
// Each unit has ONE recurrent weight, so the recurrence is element-wise; row-vector convention:
//   p = x W + b                      project_inputs, one GEMM                                    [T*B, H]
//   h = ReLU(p + u ⊙ h_prev)         u [1, H]: a vector, not a matrix
// The bound: with ReLU, |u_j| > 1 lets h_j (and its gradient) grow like |u_j|^T, so the paper keeps
// |u_j| <= γ^{1/T} (γ = 2 for its adding problem; e.g. 2^{1/35} = 1.0200 at BPTT 35), by clipping after every update;
// the authors' README: "the constraint can always set to [-1, 1]". recurrent_bound (default 1, the README's) is that
// bound, applied as the README's training scripts do: u is clipped into [-bound, bound] after every optimiser step
// (Param::max_abs, optim/optimizer.h), and at initialisation.
// Initialisation: u ~ U(0, 1) (the README, for ReLU), clipped to the bound; W and b as the other cells'.
// Not part of the cell: the paper's batch normalisation between layers and its residual variants.
// Parameters: W [I,H], b [1,H] (bias default), u [1,H].
//   expected_params = I·H + H·[bias] + H
// Table 1 style counts: 1 weight matrix, 1 matrix transformation (u ⊙ h_prev is element-wise). No gates.
#pragma once
#include "rnn/cell_util.h"

namespace twin {

class IndRnnCell final : public CellBase {
 public:
  static constexpr CellOptSet kOptions = kEveryCellOptions | CellOptSet{CellOpt::kRecurrentBound};
  static CellTraits traits(const CellConfig&) { return {}; }
  IndRnnCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope);
  int k() const override { return 1; }
  CellState step(Var p, const CellState& prev, GateRecord* rec = nullptr) const override;
  CellInfo info() const override { return {1, 1}; }
  Index expected_params() const override { return I() * H() + (b_ ? H() : 0) + H(); }

 private:
  Param* u_rec_ = nullptr;   // u [1, H], the recurrent weight vector
};

}  // namespace twin
