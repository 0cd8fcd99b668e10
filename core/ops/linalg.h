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
inline constexpr Index kDeferMaxRows = 64;   // "thin": fewer rows than this

// C = beta C + alpha op(A) op(B), routed to BLAS or Eigen by shape. C must be sized already.
void gemm(const Mat& a, bool trans_a, const Mat& b, bool trans_b, Mat& c, Real alpha = 1, Real beta = 0);
// Routing, chosen by measurement (build/bin/gemm_bench --threads 1 and 2, results/gemm_bench.md; OpenBLAS's
// OpenMP build). On one thread OpenBLAS wins from 64^3 up, thin products included ([20x200]x[200x800]: 70 vs
// Eigen 59 GFLOP/s). On two threads, products of at least kBlasMinWork multiply-adds with at least kThinRows
// rows go to OpenBLAS (softmax and projections 125-165 vs Eigen's 80-110); thin ones (the per-step recurrent
// products, rows = batch) run in Eigen's serial kernel, one block of output columns per thread ("e-split":
// [20x650]x[650x2600] 77 vs OpenBLAS 67 and Eigen's own threading 36; [20x200]x[200x800] 83 vs 52 and 46).
inline constexpr double kBlasMinWork = 1 << 22;
inline constexpr double kBlasMinWorkOneThread = 1 << 18;
inline constexpr Index kThinRows = 64;
// Eigen products of at least this many multiply-adds are split by output columns over the threads.
inline constexpr double kEigenSplitMinWork = 1 << 20;
bool gemm_uses_blas(Index m, Index n, Index k);
// gemm()'s Eigen path on its own (for gemm_bench): serial Eigen, split by output columns over the threads
// when the product has at least kEigenSplitMinWork multiply-adds and a depth k >= 64 (a shallow product
// such as a per-step weight gradient [H,20]x[20,4H] ran slower split: 28 vs 45 GFLOP/s).
void gemm_eigen(const Mat& a, bool trans_a, const Mat& b, bool trans_b, Mat& c, Real alpha = 1, Real beta = 0);

// Multiply-add flops (2·m·n·k) of every gemm() call since the last reset, for the speed task's GFLOP/s
// (torch_speed.md counts GEMM flops only). A relaxed atomic add per call: costs nothing beside a product
// and never changes a result.
std::uint64_t gemm_flops();
void reset_gemm_flops();

}  // namespace twin
