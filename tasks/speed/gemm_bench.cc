// build/bin/gemm_bench [--threads N[,N...]] [--reps R] [--rounds N] [--out PREFIX]
// --out writes PREFIX.json (machine, command, one row per shape x form x thread count), PREFIX.md (the same
// table) and PREFIX.csv beside it; without it the table is only printed.
// GFLOP/s of Eigen's own product, OpenBLAS's sgemm and (when built with them) BLIS's and oneDNN's (gemm_dnnl,
// its dnnl_sgemm, and its matmul primitive) on the product shapes our models run, in the three forms a layer
// needs (forward x W, input gradient dy W^T, weight gradient x^T dy), Eigen both on the thread count given and
// on one thread. --rounds N times the libraries in turn N times per product and keeps each one's median (for a
// machine shared with other work). This is the measurement behind the routing constants (kBlasMinWork,
// kThinRows, kBlisMinWork, kEigenSplitMinWork, kDnnlMinWork) in core/base/gemm.h.
#include <cblas.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/check.h"
#include "base/rng.h"
#include "base/threads.h"
#include "base/gemm_blis.h"
#include "base/gemm_dnnl.h"
#include "ops/linalg.h"
#include "speed_bench.h"
#include "train/args.h"
#include "train/exit_codes.h"
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

twin::CommandSpec gemm_bench_command() {
  twin::CommandSpec c("gemm_bench", "", "");
  c.about = "Times every product shape of our models in Eigen (serial, split by columns), OpenBLAS, BLIS and\n"
            "oneDNN at each thread count and prints which is fastest. What the routing takes from it:\n"
            "results/gemm_bench.md and core/base/gemm.h.\n";
  c.options = {{"--threads", "N[,N...]", "the thread counts (default 2)"},
               {"--reps", "R", "repetitions per product, the best kept (default 7)"},
               {"--rounds", "N", "the libraries in turn N times, each one's median kept (default 1)"},
               {"--out", "PREFIX", "writes PREFIX.json/.md/.csv"}};
  return c;
}

// One thread count: prints the table and appends one JSON row per shape x form to `rows`.
void bench(int threads, int reps, int rounds, nlohmann::json& rows, std::string& md);

}  // namespace

int main(int argc, char** argv) {
  return twin::run_with_exit_codes("gemm_bench", [&] {
    const std::optional<twin::ParsedArgs> p = twin::parse_args_or_help(gemm_bench_command(), argc, argv);
    if (!p) return 0;
    std::string cmd = "build/bin/gemm_bench";
    for (int i = 1; i < argc; ++i) cmd += std::string(" ") + argv[i];
    const int reps = static_cast<int>(p->integer("--reps", 1, 1000, 7));
    const int rounds = static_cast<int>(p->integer("--rounds", 1, 1000, 1));
    const std::string out = p->text("--out"), threads = p->text("--threads", "2");
    std::vector<int> thread_list;
    for (size_t at = 0; at <= threads.size();) {
      const size_t c = std::min(threads.find(',', at), threads.size());
      thread_list.push_back(static_cast<int>(twin::parse_int_flag("--threads", threads.substr(at, c - at), 1, 1000)));
      at = c + 1;
    }
    nlohmann::json rows = nlohmann::json::array();
    std::string md;
    for (int t : thread_list) bench(t, reps, rounds, rows, md);
    if (!out.empty()) {
      const nlohmann::json doc = {{"tool", "twinrnn gemm_bench"}, {"command", cmd}, {"reps", reps}, {"rounds", rounds},
                                  {"machine", twin::speed::machine_info()}, {"rows", rows}};
      const std::string head =
          "# GEMM: Eigen vs OpenBLAS vs BLIS vs oneDNN on our product shapes (GFLOP/s, best of " +
          std::to_string(reps) + ", median of " + std::to_string(rounds) + " interleaved rounds)\n\n`" + cmd + "`, " + doc["machine"].value("date", std::string("?")) + ", " +
          doc["machine"].value("cpu", std::string("?")) + "; " + doc["machine"].value("blas", std::string("?")) +
          ". Columns and what the routing takes from them: results/gemm_bench.md.\n";
      twin::write_text_atomic(out + ".json", doc.dump(2) + "\n");
      twin::write_text_atomic(out + ".md", head + md);
      twin::write_text_atomic(out + ".csv", twin::records_csv(rows, {"threads", "shape", "form", "m", "k", "n"}));
      std::printf("wrote %s.json, %s.md and %s.csv\n", out.c_str(), out.c_str(), out.c_str());
    }
    return 0;
  });
}

namespace {

// One library's way of running C = op(A) op(B): its column name and the call.
struct Backend {
  const char* name;
  std::function<void(const Mat&, bool, const Mat&, bool, Mat&)> run;
};

std::vector<Backend> backends(int threads) {
  std::vector<Backend> v;
  auto eigen = [](const Mat& a, bool ta, const Mat& b, bool tb, Mat& c) {
    if (!ta && !tb) c.noalias() = a * b;
    else if (ta) c.noalias() = a.transpose() * b;
    else c.noalias() = a * b.transpose();
  };
  v.push_back({"eigen", eigen});
  v.push_back({"eigen-1t", [eigen, threads](const Mat& a, bool ta, const Mat& b, bool tb, Mat& c) {
                 Eigen::setNbThreads(1);
                 eigen(a, ta, b, tb, c);
                 Eigen::setNbThreads(threads);
               }});
  // What core/base/gemm.h's gemm() does in Eigen: serial Eigen per column block per thread.
  v.push_back({"e-split", [](const Mat& a, bool ta, const Mat& b, bool tb, Mat& c) { twin::gemm_eigen(a, ta, b, tb, c); }});
  v.push_back({"blas", [](const Mat& a, bool ta, const Mat& b, bool tb, Mat& c) {
                 const long m = c.rows(), n = c.cols(), k = ta ? a.rows() : a.cols();
                 cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k,
                             1.f, a.data(), a.cols(), b.data(), b.cols(), 0.f, c.data(), c.cols());
               }});
  if (twin::blis_available())
    v.push_back({"blis", [](const Mat& a, bool ta, const Mat& b, bool tb, Mat& c) { twin::gemm_blis(a, ta, b, tb, c, 1, 0); }});
  if (twin::dnnl_available()) {
    // gemm()'s oneDNN route (dnnl_sgemm) and the matmul primitive it was chosen over (core/base/gemm_dnnl.cc).
    v.push_back({"dnnl", [](const Mat& a, bool ta, const Mat& b, bool tb, Mat& c) { twin::gemm_dnnl(a, ta, b, tb, c, 1, 0); }});
    v.push_back({"dnnl-matmul", [](const Mat& a, bool ta, const Mat& b, bool tb, Mat& c) {
                   twin::gemm_dnnl_matmul(a, ta, b, tb, c, 1, 0);
                 }});
  }
  return v;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

void bench(int threads, int reps, int rounds, nlohmann::json& rows, std::string& md) {
  twin::set_num_threads(threads);
  const std::vector<Backend> libs = backends(threads);
  md += "\n## " + std::to_string(threads) + " thread" + (threads == 1 ? "" : "s") + "\n\n| shape | form | m x k x n |";
  std::string rule = "|---|---|---|";
  for (const Backend& l : libs) {
    md += std::string(" ") + l.name + " |";
    rule += "---:|";
  }
  md += " winner |\n" + rule + "---|\n";
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
  std::printf("threads %d, best of %d, median of %d interleaved round%s (GFLOP/s)\n%-28s %-5s %16s", threads, reps,
              rounds, rounds == 1 ? "" : "s", "shape", "form", "m x k x n");
  for (const Backend& l : libs) std::printf(" %10s", l.name);
  std::printf(" winner\n");
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
      // The libraries in turn, A B C ... A B C ..., `rounds` times: each one's median over the rounds of its
      // best of `reps`, so a burst of load on a shared machine falls on every library alike.
      std::vector<std::vector<double>> times(libs.size());
      for (int r = 0; r < rounds; ++r)
        for (size_t i = 0; i < libs.size(); ++i)
          times[i].push_back(time_best(reps, [&] { libs[i].run(a, ta, b, tb, c); }));
      std::vector<double> gflops;
      size_t best = 0;
      for (size_t i = 0; i < libs.size(); ++i) {
        gflops.push_back(flops / median(times[i]) / 1e9);
        if (gflops[i] > gflops[best]) best = i;
      }
      const char* fname = form == Form::kForward ? "fwd" : form == Form::kInputGrad ? "dx" : "dW";
      const std::string dims = std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
      std::printf("%-28s %-5s %16s", s.what, fname, dims.c_str());
      md += std::string("| ") + s.what + " | " + fname + " | " + dims + " |";
      nlohmann::json row = {{"threads", threads}, {"shape", s.what}, {"form", fname}, {"m", m}, {"k", k}, {"n", n}};
      for (size_t i = 0; i < libs.size(); ++i) {
        char cell[32];
        std::snprintf(cell, sizeof cell, "%.1f", gflops[i]);
        std::printf(" %10s", cell);
        md += std::string(" ") + cell + " |";
        std::string key = libs[i].name;
        std::replace(key.begin(), key.end(), '-', '_');
        if (key == "e_split") key = "eigen_split";
        row[key + "_gflops"] = gflops[i];
      }
      // Columns of libraries this build lacks stay in the JSON as null (the CSV's columns are fixed).
      if (!twin::blis_available()) row["blis_gflops"] = nullptr;
      if (!twin::dnnl_available()) row["dnnl_gflops"] = row["dnnl_matmul_gflops"] = nullptr;
      std::printf(" %s\n", libs[best].name);
      md += std::string(" ") + libs[best].name + " |\n";
      row["winner"] = libs[best].name;
      rows.push_back(row);
    }
  }
}

}  // namespace
