// Matrix products of plain matrices: C = beta C + alpha op(A) op(B), routed by shape to OpenBLAS, BLIS or
// Eigen (DESIGN §8, reference/torch_speed.md), with a flop counter and the profiler's per-product timing. The
// bottom of the engine: the tape (graph/), the ops and beam search call it; it knows no op.
#pragma once
#include <cstdint>
#include <string>

#include "base/real.h"

namespace twin {

// C = beta C + alpha op(A) op(B), routed to BLAS or Eigen by shape. C must be sized already.
void gemm(const Mat& a, bool trans_a, const Mat& b, bool trans_b, Mat& c, Real alpha = 1, Real beta = 0);
// Routing, chosen by measurement (build/bin/gemm_bench --threads 1 and 2, results/gemm_bench.md; OpenBLAS's
// OpenMP build, BLIS's OpenMP build). Thin products (fewer than kThinRows rows: the per-step recurrent
// products, rows = batch, and beam search's) go to BLIS when the build has it and they have at least
// kBlisMinWork multiply-adds: on 2 threads [20x650]x[650x2600] runs at 118 GFLOP/s there against 50-58 in
// OpenBLAS or Eigen, [20x200]x[200x800] at 111 against 46-68; on one thread 63 against 51 and 85 against 61.
// Otherwise, on one thread OpenBLAS takes everything from kBlasMinWorkOneThread multiply-adds up; on two,
// products of at least kBlasMinWork multiply-adds with at least kThinRows rows go to OpenBLAS (softmax and
// projections 125-170 vs Eigen's 80-115), and the rest run in Eigen's serial kernel, split by output columns
// over the threads when large enough ("e-split"). BLIS is not used for the large products: it is not
// consistently faster there (results/gemm_bench.md), and one library per shape class keeps results stable.
//
// The measurements assume that each library runs kernels built for this CPU, which a machine can deny: BLIS 0.9
// falls back to its reference C kernels ("generic") on a CPU it does not know (an AVX-512 EPYC of 2026-11-28:
// at most 29 GFLOP/s on one thread, 18-26 on the LM's recurrent shapes against 77-107 in Eigen), and OpenBLAS's
// kernel can be forced narrower than the CPU (OPENBLAS_CORETYPE=Haswell on that machine, set by its image
// because older OpenBLAS builds go wrong on it: the LM's large products at 89-100 GFLOP/s against 107-129 in
// Eigen's AVX-512 build, 140-194 against 213-259 for Eigen's column split on two threads). GemmBackends says
// which of the two can be trusted; gemm_route
// sends to Eigen what would have gone to an untrusted library (results/speed/routing/README.md).
enum class GemmRoute { kEigen, kBlas, kBlis };
struct GemmBackends {
  bool blis = false;   // BLIS is built in and runs kernels tuned for this CPU (not its "generic" configuration)
  bool blas = true;    // OpenBLAS's kernel is not narrower than Eigen's vectors in this build
};
// Probed once: BLIS's active configuration (bli_arch_query_id) and OpenBLAS's core (openblas_get_corename)
// against Eigen's vectorisation (AVX-512 or not). Deterministic for a machine and environment.
GemmBackends detected_gemm_backends();
// What gemm() routes by: the detected backends unless a test or benchmark set others.
GemmBackends gemm_backends();
void set_gemm_backends(const GemmBackends& b);
// One line for --version and the speed reports: the libraries, their kernels and which products each takes.
std::string gemm_backends_text();
inline constexpr double kBlasMinWork = 1 << 22;
inline constexpr double kBlasMinWorkOneThread = 1 << 18;
inline constexpr double kBlisMinWork = 1 << 17;
inline constexpr Index kThinRows = 64;
// Eigen products of at least this many multiply-adds are split by output columns over the threads.
inline constexpr double kEigenSplitMinWork = 1 << 20;
GemmRoute gemm_route(Index m, Index n, Index k);   // with gemm_backends() and omp_get_max_threads()
GemmRoute gemm_route(Index m, Index n, Index k, const GemmBackends& b, int threads);
const char* gemm_route_name(GemmRoute r);
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
