// Slicing, joining and reordering rows and columns (time steps are row blocks: DESIGN §3.1).
#pragma once
#include <vector>

#include "graph/graph.h"

namespace twin {

Var slice_rows(Var x, Index start, Index n);       // rows [start, start+n)
Var slice_cols(Var x, Index start, Index n);       // columns [start, start+n)
Var concat_cols(const std::vector<Var>& xs);       // [N,D1] ++ [N,D2] ... -> [N, ΣD]
Var stack_rows(const std::vector<Var>& xs);        // [N1,D] ; [N2,D] ... -> [ΣN, D]
Var select_rows(Var x, const Ids& rows);           // y[i] = x[rows[i]] (gather; backward scatter-adds)
Var reshape(Var x, Index rows, Index cols);        // row-major reinterpretation, same size
Var transpose(Var x);

}  // namespace twin
