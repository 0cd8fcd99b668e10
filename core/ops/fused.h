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

}  // namespace twin
