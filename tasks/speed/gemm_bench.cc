// build/bin/gemm_bench [--threads N[,N...]] [--reps R] [--out PREFIX]
// --out writes PREFIX.json (machine, command, one row per shape x form x thread count), PREFIX.md (the same
// table) and PREFIX.csv beside it; without it the table is only printed.
// GFLOP/s of Eigen's own product, OpenBLAS's sgemm and (when built with it) BLIS's on the product shapes our
// models run, in the three forms a layer needs (forward x W, input gradient dy W^T, weight gradient x^T dy),
// Eigen both on the thread count given and on one thread. This is the measurement behind the routing
// constants (kBlasMinWork, kThinRows, kBlisMinWork, kEigenSplitMinWork) in core/ops/linalg.h.
#include <cblas.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/check.h"
#include "base/rng.h"
#include "base/threads.h"
#include "base/gemm_blis.h"
#include "ops/linalg.h"
#include "speed_bench.h"
#include "train/cli.h"
#include "train/records_csv.h"
#include "train/run_dir.h"

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

const char* kUsage = "usage: gemm_bench [--threads N[,N...]] [--reps R] [--out PREFIX]";

int positive(const std::string& flag, const std::string& v) { return static_cast<int>(twin::parse_int_flag(flag, v, 1, 1000)); }

// One thread count: prints the table and appends one JSON row per shape x form to `rows`.
void bench(int threads, int reps, nlohmann::json& rows, std::string& md);

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> thread_list = {2};
  int reps = 7;
  std::string out;
  std::string cmd = "build/bin/gemm_bench";
  if (argc == 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    std::printf("%s\n\nTimes every product shape of our models in Eigen (serial, split by columns), OpenBLAS and BLIS\n"
                "at each thread count (default 2; reps 7, best kept) and prints which is fastest; --out writes\n"
                "PREFIX.json/.md/.csv. What the routing takes from it: results/gemm_bench.md.\n", kUsage);
    return 0;
  }
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      cmd += " " + a;
      TW_CHECK(a == "--threads" || a == "--reps" || a == "--out", "unknown argument '", a, "'; ", kUsage);
      TW_CHECK(i + 1 < argc, a, " needs a value; ", kUsage);
      const std::string v = argv[++i];
      cmd += " " + v;
      if (a == "--reps") {
        reps = positive(a, v);
      } else if (a == "--out") {
        out = v;
      } else {
        thread_list.clear();
        for (size_t p = 0; p <= v.size();) {
          const size_t c = std::min(v.find(',', p), v.size());
          thread_list.push_back(positive(a, v.substr(p, c - p)));
          p = c + 1;
        }
      }
    }
    nlohmann::json rows = nlohmann::json::array();
    std::string md;
    for (int t : thread_list) bench(t, reps, rows, md);
    if (!out.empty()) {
      const nlohmann::json doc = {{"tool", "twinrnn gemm_bench"}, {"command", cmd}, {"reps", reps},
                                  {"machine", twin::speed::machine_info()}, {"rows", rows}};
      const std::string head =
          "# GEMM: Eigen vs OpenBLAS vs BLIS on our product shapes (GFLOP/s, best of " + std::to_string(reps) +
          ")\n\n`" + cmd + "`, " + doc["machine"].value("date", std::string("?")) + ", " +
          doc["machine"].value("cpu", std::string("?")) + "; " + doc["machine"].value("blas", std::string("?")) +
          ". Columns and what the routing takes from them: results/gemm_bench.md.\n";
      twin::write_text_atomic(out + ".json", doc.dump(2) + "\n");
      twin::write_text_atomic(out + ".md", head + md);
      twin::write_text_atomic(out + ".csv", twin::records_csv(rows, {"threads", "shape", "form", "m", "k", "n"}));
      std::printf("wrote %s.json, %s.md and %s.csv\n", out.c_str(), out.c_str(), out.c_str());
    }
    return 0;
  } catch (const twin::Error& e) {
    std::fprintf(stderr, "gemm_bench: error: %s\n", e.what());
    return 2;
  }
}

namespace {

void bench(int threads, int reps, nlohmann::json& rows, std::string& md) {
  twin::set_num_threads(threads);
  md += "\n## " + std::to_string(threads) + " thread" + (threads == 1 ? "" : "s") +
        "\n\n| shape | form | m x k x n | eigen | eigen-1t | e-split | blas | blis | winner |\n"
        "|---|---|---|---:|---:|---:|---:|---:|---|\n";
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
      const char* winner =
          best == tbs ? "blis" : best == tbl ? "blas" : best == te1 ? "eigen-1t" : best == tsplit ? "e-split" : "eigen";
      const bool blis = twin::blis_available();
      std::printf("%-28s %-5s %16s %9.1f %9.1f %9.1f %9.1f %9.1f %s\n", s.what, fname, dims.c_str(), flops / te / 1e9,
                  flops / te1 / 1e9, flops / tsplit / 1e9, flops / tbl / 1e9, blis ? flops / tbs / 1e9 : 0.0, winner);
      char blis_s[32] = "n/a", line[256];
      if (blis) std::snprintf(blis_s, sizeof blis_s, "%.1f", flops / tbs / 1e9);
      std::snprintf(line, sizeof line, "| %s | %s | %s | %.1f | %.1f | %.1f | %.1f | %s | %s |\n", s.what, fname,
                    dims.c_str(), flops / te / 1e9, flops / te1 / 1e9, flops / tsplit / 1e9, flops / tbl / 1e9, blis_s,
                    winner);
      md += line;
      nlohmann::json row = {{"threads", threads}, {"shape", s.what}, {"form", fname}, {"m", m}, {"k", k}, {"n", n},
                            {"eigen_gflops", flops / te / 1e9}, {"eigen_1t_gflops", flops / te1 / 1e9},
                            {"eigen_split_gflops", flops / tsplit / 1e9}, {"blas_gflops", flops / tbl / 1e9},
                            {"blis_gflops", blis ? nlohmann::json(flops / tbs / 1e9) : nlohmann::json()},
                            {"winner", winner}};
      rows.push_back(row);
    }
  }
}

}  // namespace
