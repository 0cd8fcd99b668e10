// Fused recurrent-cell kernels (DESIGN §8): each cell's element-wise gate math for one step as ONE node with
// an analytic backward, in place of the 8-16 small nodes of its composition. The recurrent product
// q = h_prev U stays a matmul node of its own (its weight gradient is deferred into one product over all
// steps, ops/linalg.h). Each kernel is gradient-checked and tested equal, values and gradients, to the
// composition written beside it in tests/grad_ops_fused_cells.cc (double) and tests/test_fused_cells.cc
// (float). Cells with a memory return [h | c] ([B, 2H]); split_hc() cuts it into the two states.
//
// Shapes: B = batch rows, H = hidden. `tanh_out` selects the output nonlinearity g = tanh (else identity).
#pragma once
#include <utility>

#include "graph/graph.h"

namespace twin {

// LSTM (Zaremba et al. 2014 form, no peepholes), gates ordered i f o c̃:
//   s = a + q;  i, f, o = σ(s_i), σ(s_f), σ(s_o);  c̃ = tanh(s_c);  c = f ⊙ c_prev + i ⊙ c̃;  h = o ⊙ tanh(c)
// a, q: [B, 4H]; c_prev: [B, H]  ->  [h | c]: [B, 2H]
Var lstm_cell(Var a, Var q, Var c_prev);

// GRU (Cho et al. 2014) with the reset gate applied to the recurrent product (cuDNN / PyTorch form),
// gates ordered z r h:
//   z = σ(a_z + q_z);  r = σ(a_r + q_r);  h̃ = tanh(a_h + r ⊙ q_h);  h = h_prev + z ⊙ (h̃ − h_prev)
// a, q: [B, 3H]; h_prev: [B, H]  ->  h: [B, H]
Var gru_cell(Var a, Var q, Var h_prev);

// GRU with the reset gate applied before the recurrent product (Cho et al.'s original; TensorFlow's GRUCell),
// as two nodes around the product s_h = (r ⊙ h_prev) U_h, which needs r before it can start:
//   gru_reset_hidden:  r = σ(a_r + s_r);  ->  r ⊙ h_prev                                     [B, H]
//   gru_rb_update:     z = σ(a_z + s_z);  h̃ = tanh(a_h + s_h);  h = h_prev + z ⊙ (h̃ − h_prev)   [B, H]
// a: [B, 3H] (z | r | h); s: [B, 2H] (z | r) = h_prev [U_z U_r]; s_h: [B, H]; h_prev: [B, H]
Var gru_reset_hidden(Var a, Var s, Var h_prev);
Var gru_rb_update(Var a, Var s, Var s_h, Var h_prev);

// L-GRU (Meng & Zhang 2019, DTMT), gates ordered z r l, then h and the linear H(x):
//   z, r, l = σ(a_zrl + s_zrl);  h̃ = tanh(a_h + r ⊙ s_h) + l ⊙ a_x;  h = h_prev + z ⊙ (h̃ − h_prev)
// a: [B, 5H] (z | r | l | h | H(x)); s: [B, 4H] (z | r | l | h); h_prev: [B, H]  ->  h: [B, H]
Var lgru_cell(Var a, Var s, Var h_prev);

// T-GRU (Meng & Zhang 2019, DTMT): the GRU above with no input,
//   z, r = σ(s_zr);  h̃ = tanh(r ⊙ s_h);  h = h_prev + z ⊙ (h̃ − h_prev)
// s: [B, 3H] (z | r | h, biases included); h_prev: [B, H]  ->  h: [B, H]
Var tgru_cell(Var s, Var h_prev);

// LRN (Zhang & Sennrich 2019):  i = σ(k + h_prev);  f = σ(q − h_prev);  h = g(i ⊙ v + f ⊙ h_prev)
// qkv: [B, 3H] (q | k | v); h_prev: [B, H]  ->  h: [B, H]
Var lrn_cell(Var qkv, Var h_prev, bool tanh_out);

// RAN (Lee et al. 2017):  [i f] = σ(a_if + q);  c = i ⊙ c̃ + f ⊙ c_prev (c̃ = a_c);  h = g(c)
// a: [B, 3H] (i | f | c̃); q: [B, 2H]; c_prev: [B, H]  ->  [h | c]: [B, 2H]
Var ran_cell(Var a, Var q, Var c_prev, bool tanh_out);

// SRU (Lei et al. 2018):  f = σ(a_f);  r = σ(a_r);  c = x̃ + f ⊙ (c_prev − x̃);  h = x_h + r ⊙ (g(c) − x_h)
// a: [B, 4H] (f | r | x̃ | x_h, biases included); c_prev: [B, H]  ->  [h | c]: [B, 2H]
Var sru_cell(Var a, Var c_prev, bool tanh_out);

// [h | c] -> (h, c): two slice nodes.
std::pair<Var, Var> split_hc(Var hc);

}  // namespace twin
