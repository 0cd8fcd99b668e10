// Fused ops: each replaces a small composition with one node and an analytic backward, and is tested
// equal to the composed version (tests/grad_ops_fused.cc).
#pragma once
#include "graph/graph.h"

namespace twin {

// State carry through padding: y = m ⊙ new + (1 - m) ⊙ old, m:[B,1] of 0/1 (a constant).
// Composed: mul_col(new, m) + mul_col(old, one_minus(m)).
Var mask_carry(Var next, Var prev, Var m);
// Attention context: y[b] = Σ_s α[b,s] V[s*B+b].   α:[B,S], V:[S*B,D] time-major -> [B,D]
Var weighted_sum_steps(Var alpha, Var values);
// ATR state update (Zhang et al. 2018, the authors' corrected forget gate), one node instead of seven:
//   h = σ(p + q) ⊙ p + σ(p − q) ⊙ h_prev            p, q, h_prev: [B, H]
// Composed: sigmoid(p + q) * p + sigmoid(p - q) * h_prev.
Var atr_update(Var p, Var q, Var h_prev);

}  // namespace twin
