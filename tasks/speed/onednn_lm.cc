// The oneDNN reference LM (onednn_lm.h). Only oneDNN and plain OpenMP loops compute here; the suite provides the
// config, the thread setting, the timing scheme and the report format, so both sides are read and timed alike.
#include "onednn_lm.h"

#include <cmath>
#include <cstdio>
#include <optional>

#include "base/check.h"
#include "base/json_reader.h"
#include "base/memory_use.h"
#include "base/threads.h"
#include "train/experiment.h"

#if defined(TW_HAVE_DNNL) && !defined(TW_REAL_DOUBLE)
#define TW_ONEDNN_LM 1
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <unordered_set>

#include "onednn_lm_layer.h"
#endif

namespace twin::speed {

bool onednn_reference_has(const SpeedCell& cell) { return !cell.object && (cell.name == "lstm" || cell.name == "gru"); }

#ifdef TW_ONEDNN_LM
namespace {

using namespace onednn_ref;  // onednn_lm_layer.h: Ctx, Layer, Buf, the update loops and constants

struct Window {
  std::vector<int> input, target;   // [T·B], time-major
};

// The LM of one cell on one shape.
class OnednnLm {
 public:
  OnednnLm(const SpeedConfig& c, bool lstm, const SpeedShape& s, float lr = kLr, int windows = kWindowPool,
           float init = kInit)
      : T_(c.bptt), B_(c.batch), V_(c.vocab), E_(s.embed), H_(s.hidden), lr_(lr), rng_(static_cast<unsigned>(c.seed)) {
    const Index N = T_ * B_;
    emb_.resize(V_ * E_), demb_.assign(V_ * E_, 0.f);
    uniform(emb_, rng_, init);
    for (int l = 0; l < s.layers; ++l) layers_.emplace_back(cx_, lstm, T_, B_, l == 0 ? E_ : H_, H_, rng_, init);
    ws_.resize(H_ * V_), dws_.resize(ws_.size()), bs_.assign(V_, 0.f), dbs_.resize(V_);
    uniform(ws_, rng_, init);
    x0_.resize(N * E_), logits_.resize(N * V_);
    std::uniform_int_distribution<int> id(0, static_cast<int>(V_) - 1);
    for (int k = 0; k < windows; ++k) {
      Window w;
      for (Index i = 0; i < N; ++i) w.input.push_back(id(rng_)), w.target.push_back(id(rng_));
      windows_.push_back(std::move(w));
    }
    const memory::desc y({N, H_}, kF32, Tag::ab), wsd({H_, V_}, kF32, Tag::ab), bsd({1, V_}, kF32, Tag::ab),
        lg({N, V_}, kF32, Tag::ab);
    y_ = y, wsd_ = wsd, bsd_ = bsd, lg_ = lg;
    yt_ = memory::desc({H_, N}, kF32, Dims{1, H_});      // Yᵀ as strides over Y
    wst_ = memory::desc({V_, H_}, kF32, Dims{1, V_});    // W_sᵀ as strides over W_s
    out_ = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(y, wsd, bsd, lg), cx_.eng));
    dws_mm_ = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(yt_, lg, wsd), cx_.eng));
    dy_mm_ = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(lg, wst_, y), cx_.eng));
    smax_tr_ = dnnl::softmax_forward(dnnl::softmax_forward::primitive_desc(
        dnnl::softmax_forward::desc(dnnl::prop_kind::forward_training, lg, 1), cx_.eng));
    smax_in_ = dnnl::softmax_forward(dnnl::softmax_forward::primitive_desc(
        dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, lg, 1), cx_.eng));
    dy_.resize(N * H_);
  }

  Index params() const {
    Index n = static_cast<Index>(emb_.size() + ws_.size() + bs_.size());
    for (const Layer& l : layers_) n += static_cast<Index>(l.w.size() + l.u.size() + l.b.size());
    return n;
  }

  // 2mnk of the products of one step by the suite's convention (onednn_lm.h).
  std::uint64_t step_flops(bool training) const {
    const double N = static_cast<double>(T_ * B_), T = static_cast<double>(T_), B = static_cast<double>(B_);
    const double soft = 2 * N * static_cast<double>(H_ * V_);
    double f = training ? 3 * soft : soft;
    for (const Layer& l : layers_) {
      const double in = 2 * N * static_cast<double>(l.I * l.G * l.H), rec = 2 * B * static_cast<double>(l.H * l.G * l.H);
      f += training ? 3 * in + (3 * T - 1) * rec : in + T * rec;
    }
    return static_cast<std::uint64_t>(f);
  }

  double train_step() {
    const Window& w = next();
    const double loss = forward(w, true);
    gradients(w);
    clip_and_update();
    return loss;
  }

  double infer_step() { return forward(next(), false); }

  // Central differences of the loss on the first window from a zero state, along one ±1 direction per parameter
  // group (the signs of the analytic gradient, random where it is 0), beside the analytic directional derivative (no update). Groups: embedding, per layer W, U,
  // b, then the softmax's W and b.
  std::vector<std::pair<double, double>> directional_check(double eps) {
    const Window& w = windows_.front();
    zero_states();
    forward(w, true);
    gradients(w);
    std::vector<std::pair<Buf*, Buf*>> groups{{&emb_, &demb_}};
    for (Layer& l : layers_) groups.insert(groups.end(), {{&l.w, &l.dw}, {&l.u, &l.du}, {&l.b, &l.db}});
    groups.insert(groups.end(), {{&ws_, &dws_}, {&bs_, &dbs_}});
    std::bernoulli_distribution coin(0.5);
    std::vector<std::pair<double, double>> out;
    for (auto [theta, grad] : groups) {
      Buf d(theta->size());
      double analytic = 0;
      for (size_t i = 0; i < d.size(); ++i) {   // along sign(gradient): the largest derivative, ||g||_1
        const float gi = (*grad)[i];
        d[i] = gi > 0 ? 1.f : gi < 0 ? -1.f : coin(rng_) ? 1.f : -1.f;
        analytic += static_cast<double>(gi) * d[i];
      }
      const Buf keep = *theta;
      auto loss_at = [&](double sign) {
        for (size_t i = 0; i < d.size(); ++i) (*theta)[i] = keep[i] + static_cast<float>(sign * eps) * d[i];
        zero_states();
        return forward(w, false);
      };
      const double numeric = (loss_at(1) - loss_at(-1)) / (2 * eps);
      *theta = keep;
      out.emplace_back(analytic, numeric);
    }
    return out;
  }

 private:
  void zero_states() {
    for (Layer& l : layers_)
      for (Buf* b : {&l.h[0], &l.c[0], &l.hi[0], &l.ci[0]}) std::fill(b->begin(), b->end(), 0.f);
  }

  // After forward(w, true): every parameter's gradient (the embedding's in the rows of demb_ listed in rows_).
  void gradients(const Window& w) {
    const Index N = T_ * B_;
    // dlogits = (p − onehot) / N, in place over p.
    const float inv = 1.0f / static_cast<float>(N);
#pragma omp parallel for schedule(static)
    for (Index i = 0; i < N; ++i) {
      float* row = logits_.data() + i * V_;
      for (Index v = 0; v < V_; ++v) row[v] *= inv;
      row[w.target[static_cast<size_t>(i)]] -= inv;
    }
    Layer& top = layers_.back();
    Args a1{{DNNL_ARG_SRC, cx_.wrap(yt_, top.y.data())},
            {DNNL_ARG_WEIGHTS, cx_.wrap(lg_, logits_.data())},
            {DNNL_ARG_DST, cx_.wrap(wsd_, dws_.data())}};
    dws_mm_.execute(cx_.s, a1);
    Args a2{{DNNL_ARG_SRC, cx_.wrap(lg_, logits_.data())},
            {DNNL_ARG_WEIGHTS, cx_.wrap(wst_, ws_.data())},
            {DNNL_ARG_DST, cx_.wrap(y_, dy_.data())}};
    dy_mm_.execute(cx_.s, a2);
    column_sums(logits_, N, V_, dbs_);
    float* dy = dy_.data();
    for (size_t l = layers_.size(); l-- > 0;) {
      float* x = l == 0 ? x0_.data() : layers_[l - 1].y.data();
      layers_[l].backward(cx_, x, dy);
      dy = layers_[l].dx.data();
    }
    // dE: the rows of dx0 onto the rows used (the unique ones listed for the norm and the update).
    rows_.clear();
    for (Index i = 0; i < N; ++i) {
      const int id = w.input[static_cast<size_t>(i)];
      float* g = demb_.data() + static_cast<Index>(id) * E_;
      if (!used_.count(id)) used_.insert(id), rows_.push_back(id);
      const float* d = dy + i * E_;
      for (Index e = 0; e < E_; ++e) g[e] += d[e];
    }
    used_.clear();
  }

  // The global-norm clip at kClip, SGD, and the embedding gradient's rows back to 0.
  void clip_and_update() {
    double sq = sum_squares(dws_) + sum_squares(dbs_);
    for (const Layer& l : layers_) sq += sum_squares(l.dw) + sum_squares(l.du) + sum_squares(l.db);
    for (int id : rows_) {
      const float* g = demb_.data() + static_cast<Index>(id) * E_;
      for (Index e = 0; e < E_; ++e) sq += static_cast<double>(g[e]) * g[e];
    }
    const double norm = std::sqrt(sq);
    const float step = lr_ * static_cast<float>(norm > kClip ? kClip / norm : 1.0);
    sgd(ws_, dws_, step), sgd(bs_, dbs_, step);
    for (Layer& l : layers_) sgd(l.w, l.dw, step), sgd(l.u, l.du, step), sgd(l.b, l.db, step);
    for (int id : rows_) {
      float* e = emb_.data() + static_cast<Index>(id) * E_;
      float* g = demb_.data() + static_cast<Index>(id) * E_;
      for (Index k = 0; k < E_; ++k) e[k] -= step * g[k], g[k] = 0.f;
    }
  }

  const Window& next() { return windows_[static_cast<size_t>(k_++) % windows_.size()]; }

  static void column_sums(const Buf& m, Index rows, Index cols, Buf& out) {
#pragma omp parallel for schedule(static)
    for (Index j0 = 0; j0 < cols; j0 += 256) {
      const Index j1 = std::min(cols, j0 + 256);
      for (Index j = j0; j < j1; ++j) out[j] = 0.f;
      for (Index i = 0; i < rows; ++i)
        for (Index j = j0; j < j1; ++j) out[j] += m[i * cols + j];
    }
  }

  // Embedding, layers, softmax; leaves p in logits_; returns the mean negative log-likelihood.
  double forward(const Window& w, bool training) {
    const Index N = T_ * B_;
#pragma omp parallel for schedule(static)
    for (Index i = 0; i < N; ++i)
      std::memcpy(x0_.data() + i * E_, emb_.data() + static_cast<Index>(w.input[static_cast<size_t>(i)]) * E_,
                  sizeof(float) * static_cast<size_t>(E_));
    float* x = x0_.data();
    for (Layer& l : layers_) {
      l.forward(cx_, x, training);
      x = l.y.data();
    }
    Args a{{DNNL_ARG_SRC, cx_.wrap(y_, x)},
           {DNNL_ARG_WEIGHTS, cx_.wrap(wsd_, ws_.data())},
           {DNNL_ARG_BIAS, cx_.wrap(bsd_, bs_.data())},
           {DNNL_ARG_DST, cx_.wrap(lg_, logits_.data())}};
    out_.execute(cx_.s, a);
    memory lg = cx_.wrap(lg_, logits_.data());
    (training ? smax_tr_ : smax_in_).execute(cx_.s, {{DNNL_ARG_SRC, lg}, {DNNL_ARG_DST, lg}});
    double loss = 0;
#pragma omp parallel for reduction(+ : loss) schedule(static)
    for (Index i = 0; i < N; ++i)
      loss -= std::log(std::max(logits_[i * V_ + w.target[static_cast<size_t>(i)]], 1e-30f));
    return loss / static_cast<double>(N);
  }

  Ctx cx_;
  Index T_, B_, V_, E_, H_;
  float lr_;
  std::mt19937 rng_;
  Buf emb_, demb_, ws_, dws_, bs_, dbs_, x0_, logits_, dy_;
  std::vector<Layer> layers_;
  std::vector<Window> windows_;
  std::vector<int> rows_;
  std::unordered_set<int> used_;
  memory::desc y_, wsd_, bsd_, lg_, yt_, wst_;
  dnnl::primitive out_, dws_mm_, dy_mm_, smax_tr_, smax_in_;
  long k_ = 0;
};

SpeedRecord run_one(const SpeedConfig& c, const SpeedCell& cell, const SpeedShape& s, int threads, const FmaPeak& peak) {
  SpeedRecord r;
  r.cell = cell.name, r.shape = s.name, r.embed = s.embed, r.hidden = s.hidden, r.layers = s.layers;
  r.threads = threads;
  r.fma_peak_gflops = peak.gflops, r.fma_peak_bits = peak.bits, r.fma_peak_256_gflops = peak.gflops_256;
  OnednnLm m(c, cell.name == "lstm", s);
  r.params = m.params();
  double last = 0;
  for (int i = 0; i < c.warmup_steps + 1; ++i) last = m.train_step();
  r.train_step_s = time_windows(c.windows, c.steps_per_window, [&] { last = m.train_step(); });
  r.finite = std::isfinite(last);
  for (int i = 0; i < c.warmup_steps + 1; ++i) m.infer_step();
  r.infer_step_s = time_windows(c.windows, c.steps_per_window, [&] { m.infer_step(); });
  const double tokens = static_cast<double>(c.batch) * c.bptt;
  r.train_words_s = tokens / r.train_step_s;
  r.infer_words_s = tokens / r.infer_step_s;
  r.train_step_flops = m.step_flops(true);
  r.infer_step_flops = m.step_flops(false);
  r.train_gflops = static_cast<double>(r.train_step_flops) / r.train_step_s / 1e9;
  r.peak_fraction = peak.gflops > 0 ? r.train_gflops / peak.gflops : 0;
  r.peak_rss_mb = peak_rss_mb();
  return r;
}

}  // namespace

bool onednn_reference_available() { return true; }

OnednnProbe probe_onednn_reference(const SpeedConfig& cfg, const SpeedShape& shape, bool lstm, int steps, float lr,
                                   int windows) {
  TW_CHECK(windows >= 1 && steps >= 0, "probe_onednn_reference: ", windows, " windows, ", steps, " steps");
  OnednnLm m(cfg, lstm, shape, lr, windows);
  OnednnProbe p;
  for (int i = 0; i < steps; ++i) p.losses.push_back(m.train_step());
  p.train_flops = m.step_flops(true);
  p.infer_flops = m.step_flops(false);
  p.params = m.params();
  return p;
}

std::vector<std::pair<double, double>> onednn_reference_directional_check(const SpeedConfig& cfg,
                                                                          const SpeedShape& shape, bool lstm,
                                                                          double eps, float init) {
  OnednnLm m(cfg, lstm, shape, kLr, kWindowPool, init);
  return m.directional_check(eps);
}

SpeedReport run_onednn_reference(const SpeedConfig& c, bool verbose) {
  SpeedReport rep;
  rep.machine = machine_info();
  const dnnl_version_t* v = dnnl_version();
  rep.machine["program"] = "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
                           std::to_string(v->patch) + " reference LM (speed onednn, tasks/speed/onednn_lm.h)";
  for (int threads : c.threads) {
    set_num_threads(threads);
    const FmaPeak peak = fma_peak(threads);
    for (const SpeedShape& s : c.shapes)
      for (const SpeedCell& cell : c.cells) {
        if (!onednn_reference_has(cell)) {
          if (verbose) std::fprintf(stderr, "%s: no oneDNN form (lstm and gru only); skipped\n", cell.name.c_str());
          continue;
        }
        SpeedRecord r = run_one(c, cell, s, threads, peak);
        if (verbose) std::fprintf(stderr, "onednn %s\n", progress_line(r).c_str());
        rep.records.push_back(std::move(r));
      }
  }
  return rep;
}
#else
bool onednn_reference_available() { return false; }
OnednnProbe probe_onednn_reference(const SpeedConfig&, const SpeedShape&, bool, int, float, int) {
  TW_FAIL("speed onednn: this build has no oneDNN");
}
std::vector<std::pair<double, double>> onednn_reference_directional_check(const SpeedConfig&, const SpeedShape&, bool,
                                                                          double, float) {
  TW_FAIL("speed onednn: this build has no oneDNN");
}
SpeedReport run_onednn_reference(const SpeedConfig&, bool) {
  TW_FAIL("speed onednn: this build has no oneDNN (install libdnnl-dev and configure with -DTW_WITH_DNNL=ON; "
          "float builds only)");
}
#endif

CommandSpec onednn_reference_command() {
  CommandSpec c("speed onednn", "<experiment.json>", "experiment file");
  c.summary = "the oneDNN reference LM (tasks/speed/onednn_lm.h): the speed task's workload on oneDNN's LSTM/GRU,\n"
              "matmul and softmax primitives, for the lstm and gru entries; writes <out>.json/.md/.csv";
  c.options = {set_option(), {"--quiet", "", "no progress lines", OptionSpec::kSwitch}};
  return c;
}

// Runs under run_named_mode's exit-code convention (train/args.h).
int onednn_reference_main(int argc, char** argv) {
  const std::optional<ParsedArgs> p = parse_args_or_help(onednn_reference_command(), argc, argv);
  if (!p) return 0;
  Experiment exp = Experiment::load(p->operands.front(), p->texts("--set"));
  JsonReader r = exp.reader();
  const SpeedConfig cfg = parse_speed_config(r);
  bool any = false;
  for (const SpeedCell& cell : cfg.cells) any = any || onednn_reference_has(cell);
  if (!any)
    r.fail("cells", "lists no cell the oneDNN reference has a form of (the bare names \"lstm\" and \"gru\")");
  SpeedReport rep = run_onednn_reference(cfg, !p->given("--quiet"));
  rep.tool = "twinrnn speed onednn (the oneDNN reference LM)";
  write_speed_report(cfg, rep);
  std::printf("%s\nwrote %s.json, %s.md and %s.csv\n", report_markdown(cfg, rep).c_str(), cfg.out.c_str(),
              cfg.out.c_str(), cfg.out.c_str());
  return 0;
}

}  // namespace twin::speed
