// Pointwise nonlinearities. Backward uses the output where that is cheaper (sigmoid, tanh, exp).
#pragma once
#include "graph/graph.h"

namespace twin {

Var sigmoid(Var x);
Var tanh(Var x);
Var relu(Var x);
Var exp(Var x);
Var log(Var x);   // x must be > 0

// Plain-matrix helpers shared with fused kernels.
Mat sigmoid(const Mat& x);

}  // namespace twin
