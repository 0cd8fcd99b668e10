// Row-wise softmax family, numerically stable (max subtracted).
#pragma once
#include "graph/graph.h"

namespace twin {

Var softmax_rows(Var x);
Var log_softmax_rows(Var x);
// mask: same shape as x, 1 = keep, 0 = masked. Masked entries get exactly zero probability; a row with
// every entry masked is all zeros (never NaN).
Var masked_softmax_rows(Var x, const Mat& mask);

// Plain-matrix helpers (beam search, evaluation).
Mat softmax_rows(const Mat& x);
Mat log_softmax_rows(const Mat& x);

}  // namespace twin
