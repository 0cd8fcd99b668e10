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
// Routing, chosen by measurement (build/bin/gemm_bench --threads 2, results/gemm_bench.md; OpenBLAS's
// OpenMP build): products of at least kBlasMinWork multiply-adds go to OpenBLAS, which wins on every such
// shape (softmax and projections 110-140 GFLOP/s vs Eigen's 80-90; medium per-step [20x650]x[650x2600] 45
// vs 30). Smaller ones, the small models' per-step recurrent products ([20x200]x[200x800]: 56 GFLOP/s),
// run in Eigen on ONE thread: splitting them over two threads halved their speed (29).
inline constexpr double kBlasMinWork = 1 << 22;
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
