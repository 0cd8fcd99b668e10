// Contribution weights of the twin-gated cells, ATR paper Eq. (10) and the LRN README's unrolling.
// For a cell whose state update is  h_t = i_t ⊙ v_t + f_t ⊙ h_{t-1}  (identity-output ATR with v = p,
// LRN with v = v, RAN's memory with v = c̃), a zero initial state gives
//   h_t = Σ_{k ≤ t} g_k ⊙ v_k,      g_k = i_k ⊙ Π_{l=k+1..t} f_l             (forward direction)
// and, for an RNN run backward over time, h_t = Σ_{k ≥ t} g_k ⊙ v_k with g_k = i_k ⊙ Π_{l=t..k-1} f_l.
// With a tanh output (or input_tanh) the sum is only the approximation the paper describes.
// Inputs are the gate sequences run_rnn(..., record_gates = true) returns: one [B, H] per time step, in time
// order whichever the direction. The plots (dependencies.py, memory_weights.py) read these matrices.
#pragma once
#include <vector>

#include "rnn/rnn.h"

namespace twin {

// g_k [B, H] for every k = 0..T-1 (zero where input k cannot reach step t), for the state after step t.
std::vector<Mat> contribution_weights(const std::vector<Mat>& i, const std::vector<Mat>& f, Index t,
                                      Dir dir = Dir::kForward);
// Σ_k g_k ⊙ v_k [B, H]: the state at step t rebuilt from the gates and the per-step values v (each [B, H]).
// Padding: a backward run reaches step t after the padded steps too, so for a right-padded sequence pass
// only its first `length` steps (final_state_weights and dependency_matrix take the lengths themselves).
Mat unrolled_state(const std::vector<Mat>& i, const std::vector<Mat>& f, const std::vector<Mat>& v, Index t,
                   Dir dir = Dir::kForward);
// Per-token contribution to each sequence's FINAL state, averaged over the H units: [T, B], entry (k, b) =
// mean_h g_k for sequence b (lengths[b] real steps, right-padded; 0 on padding). The final state is after
// step lengths[b]-1 forward, after step 0 backward.
Mat final_state_weights(const std::vector<Mat>& i, const std::vector<Mat>& f, const std::vector<Index>& lengths,
                        Dir dir = Dir::kForward);
// Dependencies of sequence b (its first `length` steps): [length, length], entry (t, k) = mean_h g_k in the
// state after step t (0 where k cannot reach t). ATR paper Fig. 4 links each t to its largest earlier k.
Mat dependency_matrix(const std::vector<Mat>& i, const std::vector<Mat>& f, Index b, Index length,
                      Dir dir = Dir::kForward);

}  // namespace twin
