// Pointwise nonlinearities. Backward uses the output where that is cheaper (sigmoid, tanh, exp).
#pragma once
#include "graph/graph.h"

namespace twin {

Var sigmoid(Var x);
Var tanh(Var x);
Var relu(Var x);
Var exp(Var x);
Var log(Var x);   // x must be > 0
// softplus(x) = ln(1 + e^x), computed as max(x, 0) + ln(1 + e^-|x|) (no overflow at either end).
Var softplus(Var x);
// The g of minGRU/minLSTM's candidate (Feng et al. 2024, log-space section; BorealisAI/minRNNs models/minRNNs.py
// applies it as tilde_h = g(hidden)): g(x) = x + 1/2 for x >= 0, σ(x) below; continuous (g(0) = 1/2 = σ(0)) and
// positive, so that the paper's log-space scan can take its log.
Var minrnn_g(Var x);

// Plain-matrix helpers shared with fused kernels.
Mat sigmoid(const Mat& x);

}  // namespace twin
