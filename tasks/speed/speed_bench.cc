#include "speed_bench.h"

#include <immintrin.h>
#include <omp.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "base/rng.h"
#include "base/threads.h"
#include "base/memory_use.h"
#include "base/profile.h"
#include "lm_model.h"
#include "ops/linalg.h"
#include "optim/clip.h"
#include "optim/optimizer.h"

namespace twin::speed {

namespace {

// SGD learning rate of the timed training steps, and the gradient-norm clip of every recipe (5): with them
// no cell diverges on random targets over a long RSS run (the paper's identity-output ATR did without the
// clip). The values do not change the work done; the clip adds one pass over the gradients.
constexpr double kLr = 0.1;
constexpr Real kClip = 5;
// Distinct random windows cycled through (generating ids is not part of a step).
constexpr int kWindowPool = 4;

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}


struct Window {
  IdMat input, target;   // [T, B]
};

std::vector<Window> random_windows(const SpeedConfig& c, Rng& rng) {
  std::vector<Window> w(kWindowPool);
  for (Window& x : w) {
    x.input.resize(c.bptt, c.batch);
    x.target.resize(c.bptt, c.batch);
    for (Index i = 0; i < x.input.size(); ++i) {
      x.input.data()[i] = static_cast<std::int32_t>(rng.uniform_int(0, c.vocab - 1));
      x.target.data()[i] = static_cast<std::int32_t>(rng.uniform_int(0, c.vocab - 1));
    }
  }
  return w;
}

// The LM of one "cells" entry on one shape: the entry's cell with the shape's hidden size (no dropout, untied).
lm::LmModelConfig bench_model_config(const SpeedCell& cell, const SpeedShape& s) {
  lm::LmModelConfig mc;
  mc.embed = s.embed;
  mc.layers = s.layers;
  mc.cell = cell.cell;
  mc.cell.hidden = s.hidden;
  mc.dropout = 0.0;
  mc.tie = false;
  return mc;
}

// One benchmarked model: its parameters, SGD, carried (detached) state, and the random windows.
class Bench {
 public:
  Bench(const SpeedConfig& c, const SpeedCell& cell, const SpeedShape& s)
      : store_(c.seed), rng_(c.seed * 7919 + 3) {
    model_ = std::make_unique<lm::LmModel>(bench_model_config(cell, s), c.vocab, store_);
    OptimConfig oc;
    oc.name = OptimKind::kSgd;
    oc.lr = kLr;
    opt_ = make_optimizer(oc);
    windows_ = random_windows(c, rng_);
  }

  // forward + backward + SGD step + zero_grad; returns the loss.
  double train_step() {
    const Window& w = next();
    Graph& g = train_graph_;
    Stopwatch sw;
    g.clear();
    Var loss = model_->loss(g, w.input, w.target, train_state_, rng_);
    const double l = loss.val()(0, 0);
    const double t_fwd = sw.seconds();
    g.backward(loss);
    const double t_bwd = sw.seconds();
    clip_global_norm(store_, kClip);
    opt_->step(store_, static_cast<Real>(kLr));
    store_.zero_grad();
    phases_.fwd += t_fwd;
    phases_.bwd += t_bwd - t_fwd;
    phases_.update += sw.seconds() - t_bwd;
    ++phases_.steps;
    return l;
  }
  double infer_step() {
    const Window& w = next();
    Graph& g = infer_graph_;
    g.clear();
    Var loss = model_->loss(g, w.input, w.target, infer_state_, rng_);
    return loss.val()(0, 0);
  }

  struct Phases {   // summed seconds of the training steps since the last reset
    double fwd = 0, bwd = 0, update = 0;
    long steps = 0;
  };
  Phases& phases() { return phases_; }
  ParamStore& store() { return store_; }
  const lm::LmModel& model() const { return *model_; }

 private:
  const Window& next() { return windows_[static_cast<size_t>(k_++ % kWindowPool)]; }

  ParamStore store_;
  Rng rng_;
  std::unique_ptr<lm::LmModel> model_;
  std::unique_ptr<Optimizer> opt_;
  std::vector<Window> windows_;
  lm::LmState train_state_, infer_state_;
  Graph train_graph_{Mode::kTrain}, infer_graph_{Mode::kInfer};   // reused: clear() recycles buffers
  long k_ = 0;
  Phases phases_;
};

SpeedRecord run_one(const SpeedConfig& c, const SpeedCell& cell, const SpeedShape& s, int threads, const FmaPeak& peak) {
  SpeedRecord r;
  r.cell = cell.name;
  r.shape = s.name;
  r.embed = s.embed;
  r.hidden = s.hidden;
  r.layers = s.layers;
  r.threads = threads;
  r.fma_peak_gflops = peak.gflops;
  r.fma_peak_bits = peak.bits;
  r.fma_peak_256_gflops = peak.gflops_256;
  Bench b(c, cell, s);
  r.params = b.store().total_size();
  const CellInfo info = b.model().cell(0).info();
  r.weight_matrices = info.weight_matrices;
  r.matrix_transformations = info.matrix_transformations;
  const double tokens = static_cast<double>(c.batch) * c.bptt;

  // Training: warm-up, one counted step, then the timed windows. `done` counts every training step for
  // the RSS check.
  long done = 0;
  double last_loss = 0;
  auto train = [&] {
    last_loss = b.train_step();
    ++done;
    if (c.rss_steps > 0 && done == std::min(100L, c.rss_steps)) r.rss_step100_mb = current_rss_mb();
  };
  for (int i = 0; i < c.warmup_steps; ++i) train();
  reset_gemm_flops();
  train();
  r.train_step_flops = gemm_flops();
  b.phases() = {};
  profile::reset();
  const long faults0 = minor_faults();
  r.train_step_s = time_windows(c.windows, c.steps_per_window, train);
  const double timed = static_cast<double>(b.phases().steps);
  if (profile::enabled())
    std::fprintf(stderr, "\nprofile: %s %s, %d thread(s), training step\n\n%s\n", cell.name.c_str(), s.name.c_str(),
                 threads, profile::report(timed).c_str());
  r.train_faults_per_step = static_cast<double>(minor_faults() - faults0) / timed;
  r.train_fwd_s = b.phases().fwd / timed;
  r.train_bwd_s = b.phases().bwd / timed;
  r.train_update_s = b.phases().update / timed;
  if (c.rss_steps > 0) {
    while (done < c.rss_steps) train();
    r.rss_final_mb = current_rss_mb();
    r.rss_steps = c.rss_steps;
  }
  r.finite = std::isfinite(last_loss);

  // Inference: same scheme.
  for (int i = 0; i < c.warmup_steps; ++i) b.infer_step();
  reset_gemm_flops();
  b.infer_step();
  r.infer_step_flops = gemm_flops();
  profile::reset();
  r.infer_step_s = time_windows(c.windows, c.steps_per_window, [&] { b.infer_step(); });
  if (profile::enabled())
    std::fprintf(stderr, "\nprofile: %s %s, %d thread(s), inference step\n\n%s\n", cell.name.c_str(), s.name.c_str(),
                 threads, profile::report(static_cast<double>(c.windows) * c.steps_per_window).c_str());

  r.train_words_s = tokens / r.train_step_s;
  r.infer_words_s = tokens / r.infer_step_s;
  r.train_gflops = static_cast<double>(r.train_step_flops) / r.train_step_s / 1e9;
  r.peak_fraction = peak.gflops > 0 ? r.train_gflops / peak.gflops : 0;
  r.peak_rss_mb = peak_rss_mb();
  return r;
}

}  // namespace

std::string progress_line(const SpeedRecord& r) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-6s %-8s threads %d: train %.0f words/s (%.1f GFLOP/s), infer %.0f words/s%s",
                r.cell.c_str(), r.shape.c_str(), r.threads, r.train_words_s, r.train_gflops, r.infer_words_s,
                r.finite ? "" : "  [non-finite loss]");
  return buf;
}

double median_of(std::vector<double> v) {
  TW_CHECK(!v.empty(), "median of no values");
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

SpeedReport run_speed(const SpeedConfig& c, bool verbose) {
  SpeedReport rep;
  rep.machine = machine_info();
  for (int threads : c.threads) {
    set_num_threads(threads);
    const FmaPeak peak = fma_peak(threads);
    if (verbose)
      std::fprintf(stderr, "threads %d: FMA peak %.1f GFLOP/s (%d-bit vectors; 256-bit: %.1f)\n", threads, peak.gflops,
                   peak.bits, peak.gflops_256);
    for (const SpeedShape& s : c.shapes) {
      for (const SpeedCell& cell : c.cells) {
        SpeedRecord r = run_one(c, cell, s, threads, peak);
        if (verbose) std::fprintf(stderr, "%s\n", progress_line(r).c_str());
        rep.records.push_back(std::move(r));
      }
    }
  }
  return rep;
}

namespace {
// Register-only FMA loops, one per vector width, each compiled for its own instruction set (target
// attributes) and run only when the CPU has it (__builtin_cpu_supports), so the peak is the CPU's whatever
// -march the build used. x <- x·a + b with a ≈ 1 keeps every value normal; the sums are returned and written
// out so the loop cannot be removed. kAcc independent accumulators hide the FMA latency (4-5 cycles, 2 ports:
// at least 10 in flight): 10 of the 16 ymm registers, 16 of the 32 zmm ones.
constexpr long kInner = 1 << 14;
constexpr int kAcc256 = 10, kAcc512 = 16;
[[maybe_unused]] volatile float g_fma_sink = 0;

__attribute__((target("avx2,fma"))) float fma_loop_256(long iters, int seed) {
  const __m256 a = _mm256_set1_ps(0.9999999f), b = _mm256_set1_ps(1e-7f);
  __m256 acc[kAcc256];
  for (int j = 0; j < kAcc256; ++j) acc[j] = _mm256_set1_ps(1.0f + 0.01f * static_cast<float>(j + seed));
  for (long it = 0; it < iters; ++it)
    for (long i = 0; i < kInner; ++i)
      for (int j = 0; j < kAcc256; ++j) acc[j] = _mm256_fmadd_ps(acc[j], a, b);
  __m256 s = acc[0];
  for (int j = 1; j < kAcc256; ++j) s = _mm256_add_ps(s, acc[j]);
  alignas(32) float out[8];
  _mm256_store_ps(out, s);
  return out[0] + out[7];
}

__attribute__((target("avx512f"))) float fma_loop_512(long iters, int seed) {
  const __m512 a = _mm512_set1_ps(0.9999999f), b = _mm512_set1_ps(1e-7f);
  __m512 acc[kAcc512];
  for (int j = 0; j < kAcc512; ++j) acc[j] = _mm512_set1_ps(1.0f + 0.01f * static_cast<float>(j + seed));
  for (long it = 0; it < iters; ++it)
    for (long i = 0; i < kInner; ++i)
      for (int j = 0; j < kAcc512; ++j) acc[j] = _mm512_fmadd_ps(acc[j], a, b);
  __m512 s = acc[0];
  for (int j = 1; j < kAcc512; ++j) s = _mm512_add_ps(s, acc[j]);
  return _mm512_reduce_add_ps(s);
}

// Seconds for `iters` x kInner x kAcc FMAs of bits/32 floats on each of `threads` threads.
double fma_run(int bits, int threads, long iters) {
  float total = 0;
  Stopwatch sw;
#pragma omp parallel num_threads(threads) reduction(+ : total)
  total += bits == 512 ? fma_loop_512(iters, omp_get_thread_num()) : fma_loop_256(iters, omp_get_thread_num());
  const double t = sw.seconds();
  g_fma_sink = total;
  return t;
}

double fma_gflops(int bits, int threads, double seconds) {
  long iters = 16;   // grown until one run lasts `seconds`
  double t = fma_run(bits, threads, iters);
  while (t < seconds && iters < (1L << 30)) {
    iters *= 2;
    t = fma_run(bits, threads, iters);
  }
  for (int rep = 0; rep < 2; ++rep) t = std::min(t, fma_run(bits, threads, iters));   // best of three: shared machine
  const double fmas_per_thread = (bits == 512 ? 16.0 * kAcc512 : 8.0 * kAcc256) * static_cast<double>(kInner) *
                                 static_cast<double>(iters);
  return 2.0 * fmas_per_thread * threads / t / 1e9;
}
}  // namespace

FmaPeak fma_peak(int threads, double seconds) {
  FmaPeak p;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    p.gflops_256 = fma_gflops(256, threads, seconds);
    p.gflops = p.gflops_256;
    p.bits = 256;
  }
  if (__builtin_cpu_supports("avx512f")) {
    p.gflops = fma_gflops(512, threads, seconds);
    p.bits = 512;
  }
  return p;
}

}  // namespace twin::speed
