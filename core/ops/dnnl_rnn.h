// One whole LSTM or GRU layer in one direction as ONE node of the tape, run by oneDNN's RNN primitives
// (lstm_forward / lstm_backward, gru_*, lbr_gru_*: forward_training or forward_inference, then backward; f32)
// in place of the suite's per-step nodes (a matmul and a fused cell node per step, ops/fused_cells.h). Chosen
// by the cell option kernel = "dnnl" (rnn/lstm.h, rnn/gru.h); needs TW_HAVE_DNNL in a float build (the double
// build of the gradient checks has none: this op is checked in tests/test_dnnl_rnn.cc, its f32 gradients against
// f64 central differences of the cell equations, and held equal to the suite's own kernels).
//
// The suite's cells map onto oneDNN's exactly (same equations, not approximations):
//   LSTM: suite gates i f o c̃ ([I,4H] W, [H,4H] U, [1,4H] b)  ->  oneDNN ldigo gates i f c̃ o (blocks 2 and 3
//         swapped); oneDNN: c = f c_prev + i c̃, h = o tanh(c), the same.
//   GRU reset after (gru_reset_after, the suite's default): h̃ = tanh(a_h + r ⊙ (h_prev U_h)) is oneDNN's
//         linear-before-reset GRU (lbr_gru) with its fourth bias (inside r ⊙ (.)) held at 0 and not trained.
//   GRU reset before: h̃ = tanh(a_h + (r ⊙ h_prev) U_h) is oneDNN's gru (U and U_h side by side, [H,3H]).
//   Both GRUs: oneDNN writes h = u h_prev + (1 − u) h̃ where the suite has h = (1 − z) h_prev + z h̃, so
//   u = 1 − z = σ(−(a_z + s_z)): the z blocks of W, U and b go in negated and their gradients come back negated.
// Shapes: x [T*B, I] time-major; h0, c0 [B, H]; the result is [(T+1)·B, H] (GRU) or [(T+2)·B, H] (LSTM): every
// step's h in time order, then the state after the last step processed (time T-1 forward, 0 with reverse), then
// for the LSTM its memory c. No mask: the callers run it only on unpadded batches (rnn/dnnl_layer.h).
#pragma once
#include "graph/graph.h"

namespace twin {

enum class DnnlRnnCell { kLstm, kGruResetAfter, kGruResetBefore };

struct DnnlRnnParams {
  Var w;     // [I, k·H], the suite's gate order
  Var u;     // [H, k·H] (LSTM, GRU reset after) or [H, 2H] (GRU reset before)
  Var u_h;   // [H, H], GRU reset before only; else invalid
  Var b;     // [1, k·H], or invalid (bias = "none")
};

// Built with oneDNN in a float build: whether dnnl_rnn_layer can run.
bool dnnl_rnn_available();

// See the header comment. c0 only for the LSTM. reverse: the sequence is read from time T-1 to 0.
Var dnnl_rnn_layer(DnnlRnnCell cell, Var x, const DnnlRnnParams& p, Var h0, Var c0, Index batch, bool reverse);

}  // namespace twin
