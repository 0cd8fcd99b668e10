// The speed task (issue 4; the ATR paper's Tables 1 and 4 on a CPU): for every cell x shape x thread count,
// a word-level LM on random token ids — the exact workload of reference/torch_speed.md:
//   x = E[w] -> L stacked cells -> untied softmax, no dropout, LSTM forget bias 0 (unless a cell
//   object sets it), batch B, BPTT T;
//   training step  = forward + backward + gradient clip (norm 5) + SGD step + zero_grad (Mode::kTrain);
//   inference step = forward + loss (Mode::kInfer);
//   words/s = T·B tokens per step / median step time over the timed windows (warm-up excluded);
//   GFLOP/s = counted GEMM flops of one training step (2mnk per gemm(), core/ops/linalg.h) / median step time;
//   % of peak = GFLOP/s / a register-only FMA loop run with the same thread count, on the widest vectors the
//   CPU executes (512-bit AVX-512 where present, else 256-bit AVX2; issue 56: a 256-bit peak on a CPU that
//   runs 512-bit FMAs at full width made every fraction about twice too high). The 256-bit figure is kept
//   beside it as information.
// "cells" entries: a registered cell name ("atr": the cell with every default), or an object
//   {"name": "atr+ln", "cell": {"type": "atr", "layer_norm": true}}
// whose "cell" is a cell config exactly as the tasks' "model.cell" (rnn/cell_config.h, parsed by parse_cell:
// unknown keys are errors naming the path, e.g. cells[1].cell.layr_norm) except "hidden", which each shape
// sets; "name" is the label the records, tables and CSV show in the `cell` column. Labels are unique, and a
// label that is a registered name must be that cell with its defaults (the ATR : GRU : LSTM line reads them).
// Every object entry is built once per shape while parsing, so an option its cell type lacks (layer_norm on
// lstm) is an error before anything runs. to_json writes a name back as a string and an object with the
// resolved cell (every key but hidden).
// Peak RSS is getrusage's ru_maxrss: a process-wide high-water mark, so a record also reflects every
// configuration run before it (they run in config order). The RSS flatness check (rss_steps > 0) reads the
// current RSS from /proc/self/statm after training step 100 and after step rss_steps.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "base/real.h"
#include "base/threads.h"
#include "rnn/cell_config.h"

namespace twin {
class JsonReader;
}

namespace twin::speed {

struct SpeedShape {
  std::string name;
  int embed = 200, hidden = 200, layers = 2;
};

// One "cells" entry: its label and the cell it builds (hidden is filled from each shape).
struct SpeedCell {
  std::string name;                   // the label: the record's `cell`
  CellConfig cell;                    // a bare name: CellConfig with that type and every default
  bool object = false;                // written back as {"name", "cell"} (else as the bare name)
};

struct SpeedConfig {
  std::vector<SpeedCell> cells;
  std::vector<SpeedShape> shapes;
  int vocab = 10000, batch = 20, bptt = 35;
  std::vector<int> threads = {1};
  int warmup_steps = 3, windows = 5, steps_per_window = 5;
  long rss_steps = 0;                 // 0: no flatness check
  std::uint64_t seed = 1;
  std::string out;                    // output prefix: <out>.json, <out>.md
};
// From the section's ConfigTable (speed_config.cc): strict, every key above; an unknown key or a bad value is an
// error naming its path (finish() is called on `r`). to_json is the report's config echo.
SpeedConfig parse_speed_config(JsonReader& r);
nlohmann::json to_json(const SpeedConfig& c);

struct SpeedRecord {
  std::string cell, shape;                   // cell: the entry's label
  int embed = 0, hidden = 0, layers = 0, threads = 0;
  Index params = 0;                          // ParamStore total
  int weight_matrices = 0, matrix_transformations = 0;   // Cell::info() (Table 1)
  double train_step_s = 0, infer_step_s = 0;  // medians over windows
  double train_fwd_s = 0, train_bwd_s = 0, train_update_s = 0;   // means over the timed steps: loss,
                                                                 // backward, SGD step + zero_grad
  double train_faults_per_step = 0;          // minor page faults per timed training step (0: buffers reused)
  double train_words_s = 0, infer_words_s = 0;
  std::uint64_t train_step_flops = 0, infer_step_flops = 0;   // counted GEMM flops of one step
  double train_gflops = 0;                   // train_step_flops / train_step_s
  double fma_peak_gflops = 0;                // measured for this thread count, widest vectors (0: no FMA)
  int fma_peak_bits = 0;                     // their width: 512 (AVX-512) or 256 (AVX2), 0 without FMA
  double fma_peak_256_gflops = 0;            // the 256-bit loop's figure (information; = the peak without AVX-512)
  double peak_fraction = 0;                  // train_gflops / fma_peak_gflops (0 when no peak)
  double peak_rss_mb = 0;                    // ru_maxrss after this record's runs (process-wide)
  double rss_step100_mb = 0, rss_final_mb = 0;   // statm RSS after step min(100, rss_steps) and rss_steps
  long rss_steps = 0;
  bool finite = true;                        // the last training loss was finite
};
nlohmann::json to_json(const SpeedRecord& r);

struct SpeedReport {
  std::string tool = "twinrnn speed";        // the program that measured: the report's "tool"
  nlohmann::json machine;                    // cores, cpu, date
  std::vector<SpeedRecord> records;
};

// Runs every cell x shape x thread count (sets the thread count of OpenMP/Eigen/OpenBLAS; leaves it at the
// last one). verbose: one progress line per record on stderr.
SpeedReport run_speed(const SpeedConfig& cfg, bool verbose = false);
// <out>.json, <out>.md and <out>.csv (one row per record, kCsvFirst columns first), each written
// atomically (creates the parent folder).
void write_speed_report(const SpeedConfig& cfg, const SpeedReport& rep);
extern const std::vector<std::string> kCsvFirst;
nlohmann::json report_json(const SpeedConfig& cfg, const SpeedReport& rep);
std::string report_markdown(const SpeedConfig& cfg, const SpeedReport& rep);

// 12345.6 -> "12,346" (the reports' words/s).
std::string thousands(double v);
// The progress line of a record ("lstm   medium   threads 2: train 3,377 words/s (...), infer ..."), no newline.
std::string progress_line(const SpeedRecord& r);
// The median of v (the mean of the two middle values for an even count); v must not be empty.
double median_of(std::vector<double> v);
// Median seconds per step over `windows` windows of `steps` calls of step() each: how every program of the speed
// task (ours, speed onednn) times a phase, so that both sides are timed alike.
template <class F>
double time_windows(int windows, int steps, F&& step) {
  std::vector<double> per_step;
  for (int w = 0; w < windows; ++w) {
    Stopwatch sw;
    for (int s = 0; s < steps; ++s) step();
    per_step.push_back(sw.seconds() / steps);
  }
  return median_of(std::move(per_step));
}

// GFLOP/s of register-only FMA loops on `threads` OpenMP threads (best of three runs of ~`seconds` each): with
// 512-bit vectors when the CPU has AVX-512F, and with 256-bit ones (AVX2 + FMA) always when it has them; each
// loop is compiled for its instruction set whatever the build's -march, and run only on a CPU that has it.
struct FmaPeak {
  double gflops = 0;       // the widest loop's (0: the CPU has no FMA)
  int bits = 0;            // 512, 256 or 0
  double gflops_256 = 0;   // the 256-bit loop's
};
FmaPeak fma_peak(int threads, double seconds = 0.1);
// Machine description: logical cores, /proc/cpuinfo "model name", UTC date.
nlohmann::json machine_info();

}  // namespace twin::speed
