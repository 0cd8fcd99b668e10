// Elementwise arithmetic and broadcasting. '*' is elementwise on Var; matrix products are always `matmul`.
// Op contract: see graph/graph.h.
#pragma once
#include "graph/graph.h"

namespace twin {

Var operator+(Var a, Var b);              // same shape
Var operator-(Var a, Var b);
Var operator*(Var a, Var b);              // elementwise (Hadamard)
Var add_row(Var x, Var b);                // x:[N,D] + b:[1,D] broadcast over rows (bias)
Var mul_col(Var x, Var c);                // x:[N,D] * c:[N,1] broadcast over columns (masks, weights)
Var scale(Var x, Real s);                 // s * x
Var add_scalar(Var x, Real s);            // x + s
Var one_minus(Var x);                     // 1 - x
Var sum_all(Var x);                       // [1,1]
Var add_tile_rows(Var x, Var y);          // x:[S*B,D] + y:[B,D] repeated S times (attention keys + query)
Var mul_tile_rows(Var x, Var y);          // x:[S*B,D] * y:[B,D] repeated S times (variational dropout)

}  // namespace twin
