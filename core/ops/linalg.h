// Matrix products. Large products go to OpenBLAS, thin ones (the per-step recurrent products, ~20 rows)
// stay in Eigen, which is faster there on this machine (DESIGN §8, reference/torch_speed.md).
#pragma once
#include <cstdint>

#include "graph/graph.h"

namespace twin {

Var matmul(Var x, Var w);             // x:[N,I] W:[I,O] -> [N,O]
Var matmul_nt(Var x, Var w);          // x:[N,I] W:[O,I] -> x W^T [N,O] (tied output embedding)
Var affine(Var x, Var w, Var b);      // x W + b, b:[1,O]

// dW += xᵀ dy for a product's weight: deferred to one product over all steps (Graph::defer_weight_grad)
// when W is a parameter and x is thin (a per-step recurrent product), at once otherwise.
void weight_grad(Graph& g, NodeId w, const Mat& x, const Mat& dy);
inline constexpr Index kDeferMaxRows = 64;

// C = beta C + alpha op(A) op(B), routed to BLAS or Eigen by shape. C must be sized already.
void gemm(const Mat& a, bool trans_a, const Mat& b, bool trans_b, Mat& c, Real alpha = 1, Real beta = 0);
// Products with at least this many multiply-adds and every dimension >= kBlasMinDim go to BLAS. Chosen by
// measurement (build/bin/gemm_bench, results/gemm_bench.md): Eigen wins when a dimension is the batch (~20:
// the per-step recurrent products and their weight gradients) and up to 64^3; OpenBLAS wins by 30-60 % on
// the projection and softmax products and from 128x128x256 up.
inline constexpr double kBlasMinFlops = 1 << 20;
inline constexpr Index kBlasMinDim = 64;

// Multiply-add flops (2·m·n·k) of every gemm() call since the last reset, for the speed task's GFLOP/s
// (torch_speed.md counts GEMM flops only). A relaxed atomic add per call: costs nothing beside a product
// and never changes a result.
std::uint64_t gemm_flops();
void reset_gemm_flops();

}  // namespace twin
