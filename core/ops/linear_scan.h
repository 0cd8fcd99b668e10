// The fused kernel of the gated linear recurrences (issue 55): the cells whose gates read only the input
// (minGRU, minLSTM, QRNN, HGRN, SRU) have a state update that is linear in the previous state,
//   s_t = a_t ⊙ s_{t-1} + b_t,
// so the whole sequence is ONE node: the forward loop over time, and a backward by the reverse recurrence
//   g_t = ∂L/∂s_t (direct) + a_{t+1} ⊙ g_{t+1},   ∇a_t = s_{t-1} ⊙ g_t,   ∇b_t = g_t,   ∇s_0 = a_first ⊙ g_first,
// threaded over batch × hidden (each thread owns whole (sequence, column block) tiles for all T steps, so the
// threads never wait for one another) and vectorised over the columns of a tile. It replaces the composed
// per-step ops of the cells' step() (tests/grad_ops_linear_scan.cc and test_linear_scan.cc check it against them).
// No parallel scan over time: at the suite's lengths it loses to this loop (README, The cells).
//
// Shapes: time-major [T*B, H] with B = s0.rows(); rows t*B .. t*B+B-1 are step t. mask: [T*B, 1] of 0/1, or empty
// (every step real). `reverse` runs t = T-1 .. 0 (a backward RNN): the "previous" state is then step t+1's.
#pragma once
#include "graph/graph.h"

namespace twin {

// How a_t and b_t combine with the previous state:
//   kAffine   s_t = a_t ⊙ s_{t-1} + b_t                  (minLSTM without normalisation: a = f, b = i ⊙ h̃)
//   kConvex   s_t = b_t + a_t ⊙ (s_{t-1} − b_t)          (= a ⊙ s_{t-1} + (1 − a) ⊙ b: minGRU, normalised minLSTM,
//                                                          QRNN, HGRN, SRU; b is then the value v the gate mixes in,
//                                                          written as SRU's fused step computes it)
enum class ScanForm { kAffine, kConvex };

// s_t for every step [T*B, H] from a, b [T*B, H] and the state before the first processed step s0 [B, H]. On a
// padded step (mask 0) the state is carried exactly, s_t = s_{t-1}, as run_rnn's mask_carry does.
// Backward (kConvex): ∂s_t/∂s_{t-1} = a_t, ∂s_t/∂a_t = s_{t-1} − b_t, ∂s_t/∂b_t = 1 − a_t.
Var linear_scan(Var a, Var b, Var s0, const Mat& mask, bool reverse, ScanForm form);

// The padding carry of an output that is not the scan's state (SRU's, QRNN's and HGRN's h, read out of their
// memory c): y_t = x_t on a real step, y_{t-1} on a padded one, y before the first processed step = y0 [B, H].
// x: [T*B, H], mask [T*B, 1] of 0/1 (non-empty).     dx_t += g_t on real steps; g_{t-1} += g_t on padded ones.
Var carry_steps(Var x, Var y0, const Mat& mask, bool reverse);

}  // namespace twin
