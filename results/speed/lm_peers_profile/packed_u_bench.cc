// The per-step recurrent products of the medium LM (batch 20) four ways in oneDNN 2.6, to measure what packing
// the recurrent matrix U once per sequence would give (issue 56, point 4; results/speed/lm_peers_profile/).
//   sgemm   dnnl_sgemm, as the suite's "dnnl" route (it packs nothing across calls)
//   matmul  the matmul primitive on the plain layout, as the suite's "dnnl-matmul" route
//   packed  the matmul primitive with weights in the layout it picks (format any), reordered once before the
//           35 calls of a sequence (the reorder's time is counted, once per sequence)
//   nn      for B^T forms: U^T written out once per sequence (counted), then dnnl_sgemm on N N
// Each case times one sequence of 35 calls (a BPTT window), best of R sequences; GFLOP/s = 2 m k n 35 / time.
// Build: g++ -O3 -march=native -fopenmp packed_u_bench.cc -o packed_u_bench -ldnnl
// Run:   OMP_NUM_THREADS=2 ./packed_u_bench [reps]
#include <dnnl.hpp>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using dnnl::memory;
using Clock = std::chrono::steady_clock;

static double seconds(Clock::time_point a) { return std::chrono::duration<double>(Clock::now() - a).count(); }

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 20, steps = 35;
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream st(eng);
  struct Case { const char* what; long m, k, n; bool tb; };
  const Case cases[] = {{"LSTM h U (fwd)", 20, 650, 2600, false}, {"LSTM dG U^T (dx)", 20, 2600, 650, true},
                        {"GRU h U (fwd)", 20, 650, 1950, false},  {"GRU dG U^T (dx)", 20, 1950, 650, true},
                        {"ATR h U (fwd)", 20, 650, 650, false},   {"ATR dG U^T (dx)", 20, 650, 650, true},
                        {"small LSTM dG U^T (dx)", 20, 800, 200, true}, {"small GRU dG U^T (dx)", 20, 600, 200, true},
                        {"small ATR dG U^T (dx)", 20, 200, 200, true}, {"RAN dG U^T (dx)", 20, 1300, 650, true}};
  std::printf("threads %d, %d calls per sequence, best of %d sequences (GFLOP/s)\n\n", omp_get_max_threads(), steps, reps);
  std::printf("| product | m x k x n | op(B) | sgemm | matmul | packed (reorder counted) | N N on U^T (transpose counted) |\n");
  std::printf("|---|---|---|---:|---:|---:|---:|\n");
  for (const Case& c : cases) {
    std::vector<float> a(c.m * c.k), b(c.k * c.n), bt(c.k * c.n), out(c.m * c.n);
    for (size_t i = 0; i < a.size(); ++i) a[i] = 0.001f * static_cast<float>(i % 97);
    for (size_t i = 0; i < b.size(); ++i) b[i] = 0.002f * static_cast<float>(i % 89) - 0.05f;
    const long ldb = c.tb ? c.k : c.n;   // B stored k x n, or (for B^T) n x k
    const double flops = 2.0 * c.m * c.k * c.n * steps;
    auto best = [&](auto&& seq) { double t = 1e30; for (int r = 0; r < reps + 2; ++r) { auto s = Clock::now(); seq(); if (r >= 2) t = std::min(t, seconds(s)); } return flops / t * 1e-9; };
    const double g_sgemm = best([&] {
      for (int s = 0; s < steps; ++s)
        dnnl_sgemm('N', c.tb ? 'T' : 'N', c.m, c.n, c.k, 1.f, a.data(), c.k, b.data(), ldb, 0.f, out.data(), c.n);
    });
    const memory::desc src({c.m, c.k}, memory::data_type::f32, memory::format_tag::ab);
    const memory::desc dst({c.m, c.n}, memory::data_type::f32, memory::format_tag::ab);
    const memory::desc wplain({c.k, c.n}, memory::data_type::f32, c.tb ? memory::format_tag::ba : memory::format_tag::ab);
    const memory::desc wany({c.k, c.n}, memory::data_type::f32, memory::format_tag::any);
    memory ms(src, eng, a.data()), md(dst, eng, out.data()), mw(wplain, eng, b.data());
    dnnl::matmul plain(dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, wplain, dst), eng));
    const double g_matmul = best([&] {
      for (int s = 0; s < steps; ++s) plain.execute(st, {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}});
      st.wait();
    });
    const dnnl::matmul::primitive_desc ppd(dnnl::matmul::desc(src, wany, dst), eng);
    dnnl::matmul packed(ppd);
    memory mp(ppd.weights_desc(), eng);
    dnnl::reorder pack(mw, mp);
    const double g_packed = best([&] {
      pack.execute(st, mw, mp);
      for (int s = 0; s < steps; ++s) packed.execute(st, {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mp}, {DNNL_ARG_DST, md}});
      st.wait();
    });
    double g_nn = 0;
    if (c.tb) {
      g_nn = best([&] {
        // b is n x k (row-major); bt = b^T, k x n
#pragma omp parallel for
        for (long i = 0; i < c.n; ++i)
          for (long j = 0; j < c.k; ++j) bt[j * c.n + i] = b[i * c.k + j];
        for (int s = 0; s < steps; ++s)
          dnnl_sgemm('N', 'N', c.m, c.n, c.k, 1.f, a.data(), c.k, bt.data(), c.n, 0.f, out.data(), c.n);
      });
    }
    std::printf("| %s | %ldx%ldx%ld | %s | %.1f | %.1f | %.1f | %s |\n", c.what, c.m, c.k, c.n, c.tb ? "T" : "N",
                g_sgemm, g_matmul, g_packed, c.tb ? std::to_string(g_nn).substr(0, std::to_string(g_nn).find('.') + 2).c_str() : "–");
  }
  return 0;
}
