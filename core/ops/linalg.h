// The differentiable matrix products (their forward and backward run through base/gemm.h's gemm(), which
// routes each product to OpenBLAS, BLIS or Eigen by shape).
#pragma once
#include "base/gemm.h"
#include "graph/graph.h"

namespace twin {

Var matmul(Var x, Var w);             // x:[N,I] W:[I,O] -> [N,O]
Var matmul_nt(Var x, Var w);          // x:[N,I] W:[O,I] -> x W^T [N,O] (tied output embedding)
Var affine(Var x, Var w, Var b);      // x W + b, b:[1,O]

// dW += xᵀ dy for a product's weight: deferred to one product over all steps (Graph::defer_weight_grad)
// when W is a parameter and x is thin (a per-step recurrent product), at once otherwise.
void weight_grad(Graph& g, NodeId w, const Mat& x, const Mat& dy);
inline constexpr Index kDeferMaxRows = 64;   // "thin": fewer rows than this

}  // namespace twin
