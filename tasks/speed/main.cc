// build/bin/speed <experiments/speed/name.json> [--set key=value ...] [--quiet] [--profile]
// build/bin/speed nmt <experiments/nmt/name.json> [--set k=v ...] [--cells a,b,c] [--steps N] [--sentences N]
//                     [--threads N] [--out PREFIX] [--shaped-corpus V [--shaped-len L] [--shaped-pairs N]]
//                                          the NMT benchmark (Table 4 for translation; nmt_bench.h), once `nmt bench`
// build/bin/speed --csv <report.json>...   writes <report>.csv beside each report of ours (this tool's
//                                          records, speed nmt's or gemm_bench's rows) without rerunning it
// --profile (or TWIN_PROFILE=1) prints, per configuration, the time of every op and every matrix product
// per step (base/profile.h); profiling itself costs a clock read per op, so use it apart from the figures.
// The first form runs the speed task (speed_bench.h) and writes <out>.json, <out>.md and <out>.csv; prints the
// markdown table.
// Every user error is one line on stderr and exit code 2.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "base/check.h"
#include "base/profile.h"
#include "nmt_bench.h"
#include "speed_bench.h"
#include "train/exit_codes.h"
#include "train/experiment.h"
#include "train/records_csv.h"
#include "train/run_dir.h"

namespace {

// "results/speed/lm.json" -> "results/speed/lm.csv"; the report's records as CSV.
std::string write_csv_beside(const std::string& report_path) {
  using namespace twin;
  TW_CHECK(report_path.size() > 5 && report_path.compare(report_path.size() - 5, 5, ".json") == 0,
           "--csv ", report_path, ": expected a .json report");
  const nlohmann::json doc = parse_json_text(read_file(report_path), report_path);
  const nlohmann::json& recs = report_records(doc, report_path);
  const std::vector<std::string> first =
      doc.contains("records") ? speed::kCsvFirst : std::vector<std::string>{"cell", "shape", "form", "threads"};
  const std::string out = report_path.substr(0, report_path.size() - 5) + ".csv";
  std::string text;
  try {
    text = records_csv(recs, first);
  } catch (const Error& e) {
    TW_FAIL(report_path, ": ", e.what());
  }
  write_text_atomic(out, text);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace twin;
  const char* usage =
      "usage: speed <experiment.json> [--set key=value ...] [--quiet] [--profile] | speed --csv <report.json>... | "
      "speed nmt <experiment.json> [flags]";
  // Errors of `speed nmt` name that mode, as the nmt binary's modes do ("nmt translate: error: ...").
  const bool nmt = argc > 1 && !std::strcmp(argv[1], "nmt");
  const char* prog = nmt ? "speed nmt" : "speed";
  if (!nmt && argc == 2 && (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h"))) {
    std::printf("%s\n\nMeasures training and inference words/s of the word LM for every cell x shape x thread count of\n"
                "the experiment (experiments/speed/lm.json) and writes <out>.json/.md/.csv; `speed nmt --help` for\n"
                "RNNSearch. --profile prints where each step's time goes; the machine block of every report names\n"
                "the matrix-product kernels in use (README, Speed).\n", usage);
    return 0;
  }
  return run_with_exit_codes(prog, [&] {
    if (nmt) return speed::nmt_bench_main(argc - 1, argv + 1);
    if (argc > 1 && !std::strcmp(argv[1], "--csv")) {
      TW_CHECK(argc > 2, "--csv needs at least one report .json; ", usage);
      for (int i = 2; i < argc; ++i) std::printf("wrote %s\n", write_csv_beside(argv[i]).c_str());
      return 0;
    }
    std::string config;
    std::vector<std::string> overrides;
    bool quiet = false;
    for (int i = 1; i < argc; ++i) {
      if (!std::strcmp(argv[i], "--set")) {
        TW_CHECK(i + 1 < argc, "--set needs key=value; ", usage);
        overrides.emplace_back(argv[++i]);
      } else if (!std::strcmp(argv[i], "--quiet")) {
        quiet = true;
      } else if (!std::strcmp(argv[i], "--profile")) {
        profile::set_enabled(true);
      } else if (argv[i][0] == '-' || !config.empty()) {
        TW_FAIL("unexpected argument '", argv[i], "'; ", usage);
      } else {
        config = argv[i];
      }
    }
    TW_CHECK(!config.empty(), "no experiment file given; ", usage);
    Experiment exp = Experiment::load(config, overrides);
    JsonReader r = exp.reader();
    const speed::SpeedConfig cfg = speed::parse_speed_config(r);
    const speed::SpeedReport rep = speed::run_speed(cfg, !quiet);
    speed::write_speed_report(cfg, rep);
    std::printf("%s\nwrote %s.json, %s.md and %s.csv\n", speed::report_markdown(cfg, rep).c_str(), cfg.out.c_str(),
                cfg.out.c_str(), cfg.out.c_str());
    return 0;
  });
}
