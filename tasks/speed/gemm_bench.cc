// build/bin/gemm_bench [--threads N] [--reps R]
// GFLOP/s of Eigen's own product, OpenBLAS's sgemm and (when built with it) BLIS's on the product shapes our
// models run, in the three forms a layer needs (forward x W, input gradient dy W^T, weight gradient x^T dy),
// Eigen both on the thread count given and on one thread. This is the measurement behind the routing
// constants (kBlasMinWork, kThinRows, kBlisMinWork, kEigenSplitMinWork) in core/ops/linalg.h.
#include <cblas.h>

#include <algorithm>
#include <functional>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "base/rng.h"
#include "base/threads.h"
#include "ops/gemm_blis.h"
#include "ops/linalg.h"

using twin::Mat;

namespace {

struct Shape {
  const char* what;
  long m, k, n;   // forward: [m,k] x [k,n]
};

enum class Form { kForward, kInputGrad, kWeightGrad };

double time_best(int reps, const std::function<void()>& f) {
  f();   // warm-up
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    twin::Stopwatch sw;
    f();
    best = std::min(best, sw.seconds());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 2, reps = 7;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--threads")) threads = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
  }
  twin::set_num_threads(threads);
  const std::vector<Shape> shapes = {
      {"LM small step h U (ATR)", 20, 200, 200},    {"LM small step h U (GRU)", 20, 200, 600},
      {"LM small step h U (LSTM)", 20, 200, 800},   {"LM medium step h U (LSTM)", 20, 650, 2600},
      {"LM medium step h U (ATR)", 20, 650, 650},   {"NMT step h U (GRU)", 80, 1000, 3000},
      {"LM small projection", 700, 200, 800},       {"LM medium projection", 700, 650, 2600},
      {"LM small softmax", 700, 200, 10000},        {"LM medium softmax", 700, 650, 10000},
      {"NMT beam-10 step h U (ATR)", 10, 512, 1024}, {"NMT batch step h U (ATR)", 80, 512, 1024},
      {"thin 20x64x64", 20, 64, 64},                {"thin 20x128x128", 20, 128, 128},
      {"tiny", 8, 16, 16},                          {"mid", 64, 64, 64},
      {"mid-large", 128, 128, 256}};
  std::printf("threads %d, best of %d (GFLOP/s)\n%-28s %-5s %16s %9s %9s %9s %9s %9s %s\n", threads, reps, "shape", "form",
              "m x k x n", "eigen", "eigen-1t", "e-split", "blas", "blis", "winner");
  twin::Rng rng(1);
  for (const Shape& s : shapes) {
    for (Form form : {Form::kForward, Form::kInputGrad, Form::kWeightGrad}) {
      // C[m,n] = op(A) op(B) with the layer's transposes.
      long m = s.m, k = s.k, n = s.n;
      bool ta = false, tb = false;
      if (form == Form::kInputGrad) { k = s.n; n = s.k; tb = true; }          // dx[m,k] = dy[m,n] W^T
      if (form == Form::kWeightGrad) { m = s.k; k = s.m; ta = true; }         // dW[k,n] = x^T[k,m] dy[m,n]
      Mat a(ta ? k : m, ta ? m : k), b(tb ? n : k, tb ? k : n), c(m, n);
      rng.fill_uniform(a, -1, 1);
      rng.fill_uniform(b, -1, 1);
      const double flops = 2.0 * m * n * k;
      auto eigen = [&] {
        if (!ta && !tb) c.noalias() = a * b;
        else if (ta) c.noalias() = a.transpose() * b;
        else c.noalias() = a * b.transpose();
      };
      const double te = time_best(reps, eigen);
      Eigen::setNbThreads(1);
      const double te1 = time_best(reps, eigen);
      Eigen::setNbThreads(threads);
      // What core/ops/linalg.h's gemm() does below kBlasMinWork: serial Eigen per column block per thread.
      const double tsplit = time_best(reps, [&] { twin::gemm_eigen(a, ta, b, tb, c); });
      const double tbl = time_best(reps, [&] {
        cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, 1.f,
                    a.data(), a.cols(), b.data(), b.cols(), 0.f, c.data(), c.cols());
      });
      const double tbs = twin::blis_available() ? time_best(reps, [&] { twin::gemm_blis(a, ta, b, tb, c, 1, 0); }) : 1e30;
      const char* fname = form == Form::kForward ? "fwd" : form == Form::kInputGrad ? "dx" : "dW";
      const std::string dims = std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
      const double best = std::min({te, te1, tsplit, tbl, tbs});
      std::printf("%-28s %-5s %16s %9.1f %9.1f %9.1f %9.1f %9.1f %s\n", s.what, fname, dims.c_str(), flops / te / 1e9,
                  flops / te1 / 1e9, flops / tsplit / 1e9, flops / tbl / 1e9, flops / tbs / 1e9,
                  best == tbs ? "blis" : best == tbl ? "blas" : best == te1 ? "eigen-1t" : best == tsplit ? "e-split" : "eigen");
    }
  }
  return 0;
}
