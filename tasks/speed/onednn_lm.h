// The oneDNN reference of the speed task (issue 56, point 3): the speed task's word LM (speed_bench.h) written
// directly on oneDNN's primitives, the way a CPU framework built on oneDNN runs it (PyTorch 2.x runs nn.LSTM and
// nn.GRU on CPU as one oneDNN RNN primitive per layer), so that the suite's LSTM and GRU are measured against the
// fastest CPU library in the same sitting (`speed peers`, speed_peers.h).
//
// Nothing of the suite's engine computes here (no tape, no gemm() routing, no cell code): the step is
//   x = E[w]                                   a row gather, [T·B, E], time-major
//   per layer l: lstm_forward / lbr_gru_forward (forward_training, workspace kept), state carried and detached
//   logits = Y W_s + b_s                       oneDNN matmul with bias, [T·B, V]
//   p = softmax(logits)                        oneDNN softmax_forward, in place; loss = −Σ log p[target] / (T·B)
//   dlogits = (p − onehot) / (T·B)             in place
//   dW_s = Yᵀ dlogits, dY = dlogits W_sᵀ       oneDNN matmul (transposes as strides), db_s a column sum
//   per layer, top down: lstm_backward / lbr_gru_backward (diff of the carried state 0: detached)
//   dE: the rows of dx scattered onto the rows used
//   global gradient-norm clip at 5, then SGD (lr 0.1), as the suite's speed task does;
// inference: the same forward with forward_inference primitives and the loss. Parameters are U(−0.1, 0.1), biases
// 0; the GRU is oneDNN's linear-before-reset GRU (the suite's default reset-after GRU and PyTorch's nn.GRU; its
// fourth bias block trained as PyTorch trains b_hn). Weights live in oneDNN's user layout (ldigo) and are reordered
// into the layout each primitive asks for every step, as PyTorch does.
// Only the bare cell names "lstm" and "gru" have a form here; every other entry is skipped with a line on stderr.
// GFLOP/s: the products' 2mnk flops counted from the shapes by the suite's convention (ops/linalg.h's counter on
// its own LSTM/GRU): the input product x W over the sequence, T recurrent products h U, the softmax product, and
// each one's two gradients, except the recurrent input gradient of the first step (the carried state is detached,
// so T − 1 of those); tests/test_onednn_lm.cc holds the two counts equal.
#pragma once
#include <utility>
#include <vector>

#include "speed_bench.h"
#include "train/args.h"

namespace twin::speed {

// Built with oneDNN (TW_HAVE_DNNL in a float build): whether run_onednn_reference can run.
bool onednn_reference_available();
// Whether the reference has a form of this "cells" entry (the bare names lstm and gru).
bool onednn_reference_has(const SpeedCell& cell);
// Every cell the reference has x shape x thread count, timed as run_speed times ours (same warm-up, windows,
// medians); records in the speed task's format (weight_matrices / matrix_transformations 0: not the suite's cells).
SpeedReport run_onednn_reference(const SpeedConfig& cfg, bool verbose);
// For the tests: the loss of each of `steps` training steps at learning rate `lr` over `windows` random windows
// cycled (the benchmark: 0.1 and 4), the flops of one training and one inference step, and the parameter count.
struct OnednnProbe {
  std::vector<double> losses;
  std::uint64_t train_flops = 0, infer_flops = 0;
  Index params = 0;
};
OnednnProbe probe_onednn_reference(const SpeedConfig& cfg, const SpeedShape& shape, bool lstm, int steps,
                                   float lr = 0.1f, int windows = 4);
// For the tests: per parameter group (embedding; per layer W, U, b; softmax W, b), the loss's derivative along the
// signs of the reference's gradient (random where it is 0), analytic (= its L1 norm; a gradient of the wrong sign
// or shape gives a central difference far from it) and by central differences with step eps (f32); weights drawn
// from U(−init, init) (the benchmark's 0.1 gives the recurrent weights gradients too small to difference in f32).
std::vector<std::pair<double, double>> onednn_reference_directional_check(const SpeedConfig& cfg,
                                                                          const SpeedShape& shape, bool lstm,
                                                                          double eps, float init);
// "speed onednn <experiment.json> [--set k=v ...] [--quiet]": writes <out>.json/.md/.csv like the speed task.
CommandSpec onednn_reference_command();
int onednn_reference_main(int argc, char** argv);

}  // namespace twin::speed
