// Reductions. Time-major sequences [T*B, D] reduce over time to [B, D] with a mask [T*B, 1].
#pragma once
#include "graph/graph.h"

namespace twin {

Var sum_rows(Var x);                                     // [N,D] -> [1,D]
Var sum_cols(Var x);                                     // [N,D] -> [N,1]
Var mean_rows_masked(Var x, const Mat& mask, Index batch);   // [T*B,D] -> [B,D], mean over real steps
Var max_over_time(Var x, const Mat& mask, Index batch);      // [T*B,D] -> [B,D], max over real steps

}  // namespace twin
