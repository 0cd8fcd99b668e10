// <out>.json and <out>.md of the speed task: the paper's Table 4 layout per shape and thread count, and
// the relative training speeds ATR : GRU : LSTM beside the paper's GPU figures.
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "base/allocator.h"
#include "base/fp_mode.h"
#include "base/gemm.h"
#include "speed_bench.h"
#include "train/records_csv.h"
#include "train/run_dir.h"

namespace twin::speed {

namespace {

// The ATR paper, Table 4 (training words/s on a GPU), quoted for the ratio column.
const std::map<std::string, double> kPaperTrainWords = {{"atr", 2518}, {"gru", 1996}, {"lstm", 1919}};

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string utc_date() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

std::string thousands(double v) {
  std::string s = fmt("%.0f", v);
  const size_t start = s[0] == '-' ? 1 : 0;
  for (long i = static_cast<long>(s.size()) - 3; i > static_cast<long>(start); i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

const std::vector<std::string> kCsvFirst = {"shape", "cell", "threads"};

nlohmann::json machine_info() {
  std::string cpu = "unknown";
  std::ifstream f("/proc/cpuinfo");
  for (std::string line; std::getline(f, line);) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) cpu = line.substr(line.find_first_not_of(" \t", colon + 1));
      break;
    }
  }
  const int par = openblas_get_parallel();   // 0 sequential, 1 pthreads, 2 OpenMP
  const char* wait = std::getenv("OMP_WAIT_POLICY");
  return {{"cores", std::thread::hardware_concurrency()},
          {"cpu", cpu},
          {"date", utc_date()},
          {"blas", std::string(openblas_get_config()) + (par == 2 ? " (OpenMP threads)" : par == 1 ? " (pthreads)" : "")},
          {"gemm", gemm_backends_text()},
          {"allocator", allocator_text(set_allocator())},
          {"subnormals", fp_mode_text()},
          {"omp_wait_policy", wait ? wait : "(unset)"}};
}

nlohmann::json to_json(const SpeedRecord& r) {
  return {{"cell", r.cell},
          {"shape", r.shape},
          {"embed", r.embed},
          {"hidden", r.hidden},
          {"layers", r.layers},
          {"threads", r.threads},
          {"params", r.params},
          {"weight_matrices", r.weight_matrices},
          {"matrix_transformations", r.matrix_transformations},
          {"train_step_s", r.train_step_s},
          {"train_fwd_s", r.train_fwd_s},
          {"train_bwd_s", r.train_bwd_s},
          {"train_update_s", r.train_update_s},
          {"train_faults_per_step", r.train_faults_per_step},
          {"infer_step_s", r.infer_step_s},
          {"train_words_s", r.train_words_s},
          {"infer_words_s", r.infer_words_s},
          {"train_step_flops", r.train_step_flops},
          {"infer_step_flops", r.infer_step_flops},
          {"train_gflops", r.train_gflops},
          {"fma_peak_gflops", r.fma_peak_gflops},
          {"fma_peak_bits", r.fma_peak_bits},
          {"fma_peak_256_gflops", r.fma_peak_256_gflops},
          {"peak_fraction", r.peak_fraction},
          {"peak_rss_mb", r.peak_rss_mb},
          {"rss_steps", r.rss_steps},
          {"rss_step100_mb", r.rss_step100_mb},
          {"rss_final_mb", r.rss_final_mb},
          {"finite", r.finite}};
}

nlohmann::json report_json(const SpeedConfig& cfg, const SpeedReport& rep) {
  nlohmann::json recs = nlohmann::json::array();
  for (const auto& r : rep.records) recs.push_back(to_json(r));
  return {{"tool", rep.tool},
          {"workload", "word LM, random ids, untied softmax, no dropout; train = fwd + bwd + SGD; "
                       "words/s = bptt*batch / median step time; GFLOP/s counts GEMM flops"},
          {"machine", rep.machine},
          {"config", to_json(cfg)},
          {"records", recs}};
}

std::string report_markdown(const SpeedConfig& cfg, const SpeedReport& rep) {
  std::ostringstream o;
  o << "# Speed: word LM (vocabulary " << cfg.vocab << ", batch " << cfg.batch << ", BPTT " << cfg.bptt << ")\n\n"
    << "Machine: " << rep.machine.value("cpu", std::string("?")) << ", " << rep.machine.value("cores", 0)
    << " logical cores; " << rep.machine.value("blas", std::string("?")) << "; OMP_WAIT_POLICY "
    << rep.machine.value("omp_wait_policy", std::string("?")) << "; " << rep.machine.value("date", std::string("?"))
    << ".\nAllocator: " << rep.machine.value("allocator", std::string("?")) << "; subnormal floats "
    << rep.machine.value("subnormals", std::string("?")) << ".\n"
    << "Training = forward + backward + SGD step; words/s = " << cfg.bptt * cfg.batch
    << " tokens / median step time over " << cfg.windows << " windows of " << cfg.steps_per_window
    << " steps after " << cfg.warmup_steps << " warm-up steps. GFLOP/s counts GEMM flops of the training step; "
    << "% of peak is against a register-only FMA loop with the same threads on the widest vectors the CPU "
       "executes (the 256-bit loop's figure beside it for information). Peak RSS is the process's "
       "high-water mark so far (configurations run in table order).\n";
  // Table per (shape, threads), in the order the records were run.
  std::vector<std::pair<std::string, int>> groups;
  for (const auto& r : rep.records)
    if (std::find(groups.begin(), groups.end(), std::make_pair(r.shape, r.threads)) == groups.end())
      groups.emplace_back(r.shape, r.threads);
  for (const auto& [shape, threads] : groups) {
    const SpeedRecord* first = nullptr;
    for (const auto& r : rep.records)
      if (r.shape == shape && r.threads == threads && !first) first = &r;
    o << "\n## " << shape << " (" << first->layers << " x " << first->hidden << ", embedding " << first->embed
      << "), " << threads << " thread" << (threads == 1 ? "" : "s") << " (FMA peak "
      << fmt("%.1f", first->fma_peak_gflops) << " GFLOP/s, " << first->fma_peak_bits << "-bit vectors";
    if (first->fma_peak_bits == 512) o << "; 256-bit: " << fmt("%.1f", first->fma_peak_256_gflops);
    o << ")\n\n"
      << "| cell | params | WM / MT | train words/s | inference words/s | GFLOP/s | % of peak | "
         "fwd / bwd / update (ms) | page faults / step | peak RSS (MiB) |";
    const bool rss = cfg.rss_steps > 0;
    if (rss) o << " RSS @100 -> @" << cfg.rss_steps << " (MiB) |";
    o << "\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|" << (rss ? "---:|" : "") << "\n";
    std::map<std::string, double> train;
    for (const auto& r : rep.records) {
      if (r.shape != shape || r.threads != threads) continue;
      train[r.cell] = r.train_words_s;
      o << "| " << r.cell << (r.finite ? "" : " (non-finite loss)") << " | " << thousands(static_cast<double>(r.params))
        << " | " << r.weight_matrices << " / " << r.matrix_transformations << " | " << thousands(r.train_words_s)
        << " | " << thousands(r.infer_words_s) << " | " << fmt("%.1f", r.train_gflops) << " | "
        << (r.fma_peak_gflops > 0 ? fmt("%.1f", 100 * r.peak_fraction) : std::string("n/a")) << " | "
        << fmt("%.1f", 1e3 * r.train_fwd_s) << " / " << fmt("%.1f", 1e3 * r.train_bwd_s) << " / "
        << fmt("%.1f", 1e3 * r.train_update_s) << " | " << fmt("%.0f", r.train_faults_per_step) << " | "
        << fmt("%.0f", r.peak_rss_mb) << " |";
      if (rss) o << " " << fmt("%.0f", r.rss_step100_mb) << " -> " << fmt("%.0f", r.rss_final_mb) << " |";
      o << "\n";
    }
    if (train.count("atr") && train.count("gru") && train.count("lstm")) {
      const double l = train["lstm"], pl = kPaperTrainWords.at("lstm");
      o << "\nRelative training speed ATR : GRU : LSTM — ours " << thousands(train["atr"]) << " : "
        << thousands(train["gru"]) << " : " << thousands(l) << " (" << fmt("%.2f", train["atr"] / l) << " : "
        << fmt("%.2f", train["gru"] / l) << " : 1.00); the paper (ATR paper Table 4, GPU) 2,518 : 1,996 : 1,919 ("
        << fmt("%.2f", kPaperTrainWords.at("atr") / pl) << " : " << fmt("%.2f", kPaperTrainWords.at("gru") / pl)
        << " : 1.00).\n";
    }
  }
  return o.str();
}

void write_speed_report(const SpeedConfig& cfg, const SpeedReport& rep) {
  const std::filesystem::path parent = std::filesystem::path(cfg.out).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  write_text_atomic(cfg.out + ".json", report_json(cfg, rep).dump(2) + "\n");
  write_text_atomic(cfg.out + ".md", report_markdown(cfg, rep));
  write_text_atomic(cfg.out + ".csv", records_csv(report_json(cfg, rep).at("records"), kCsvFirst));
}

}  // namespace twin::speed
