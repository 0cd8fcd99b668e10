// build/bin/speed <experiments/speed/name.json> [--set key=value ...] [--quiet] [--profile]
// build/bin/speed nmt <experiments/nmt/name.json> [--set k=v ...] [--cells a,b,c] [--steps N] [--sentences N]
//                     [--threads N] [--out PREFIX] [--shaped-corpus V [--shaped-len L] [--shaped-pairs N]]
//                                          the NMT benchmark (Table 4 for translation; nmt_bench.h), once `nmt bench`
// build/bin/speed onednn <experiments/speed/name.json> [--set k=v ...] [--quiet]   the oneDNN reference LM (onednn_lm.h)
// build/bin/speed peers <experiments/speed/name.json> [--set k=v ...] [--rounds N] [--torch auto|off|PYTHON]
//                       ours, the oneDNN reference and PyTorch in one sitting (speed_peers.h)
// build/bin/speed --csv <report.json>...   writes <report>.csv beside each report of ours (this tool's
//                                          records, speed nmt's or gemm_bench's rows) without rerunning it
// --profile (or TWIN_PROFILE=1) prints, per configuration, the time of every op and every matrix product
// per step (base/profile.h); profiling itself costs a clock read per op, so use it apart from the figures.
// The first form runs the speed task (speed_bench.h) and writes <out>.json, <out>.md and <out>.csv; prints the
// markdown table.
// Every user error is one line on stderr and exit code 2; --help (of speed, speed nmt or speed --csv) prints the
// command line of each (train/args.h).
#include <cstdio>
#include <optional>
#include <filesystem>
#include <string>
#include <vector>

#include "base/check.h"
#include "base/profile.h"
#include "nmt_bench.h"
#include "onednn_lm.h"
#include "speed_peers.h"
#include "speed_bench.h"
#include "train/args.h"
#include "train/exit_codes.h"
#include "train/experiment.h"
#include "train/records_csv.h"
#include "train/run_dir.h"

namespace {

using namespace twin;

CommandSpec speed_command() {
  CommandSpec c("speed", "<experiment.json>", "experiment file");
  c.about = "Measures training and inference words/s of the word LM for every cell x shape x thread count of\n"
            "the experiment (experiments/speed/lm.json) and writes <out>.json/.md/.csv and prints the markdown table;\n"
            "the machine block of every report names the matrix-product kernels in use (README, Speed).\n";
  c.options = {set_option(),
               {"--quiet", "", "no progress lines", OptionSpec::kSwitch},
               {"--profile", "", "print, per configuration, where each step's time goes (also TWIN_PROFILE=1)",
                OptionSpec::kSwitch}};
  return c;
}

CommandSpec csv_command() {
  CommandSpec c("speed --csv", "<report.json>...", "report .json");
  c.many = true;
  c.summary = "writes <report>.csv beside each report of ours (this tool's records, speed nmt's or gemm_bench's\n"
              "rows) without rerunning it";
  return c;
}

// "results/speed/lm.json" -> "results/speed/lm.csv"; the report's records as CSV.
std::string write_csv_beside(const std::string& report_path) {
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

int csv_main(int argc, char** argv) {
  const std::optional<ParsedArgs> p = parse_args_or_help(csv_command(), argc, argv);
  if (!p) return 0;
  for (const std::string& report : p->operands) std::printf("wrote %s\n", write_csv_beside(report).c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<CommandMode> modes = {{"nmt", speed::nmt_bench_command(), speed::nmt_bench_main},
                                   {"onednn", speed::onednn_reference_command(), speed::onednn_reference_main},
                                   {"peers", speed::peers_command(), speed::peers_main},
                                   {"--csv", csv_command(), csv_main}};
  if (const std::optional<int> rc = run_named_mode("speed", modes, argc, argv)) return *rc;
  return run_with_exit_codes("speed", [&] {
    CommandSpec spec = speed_command();
    const ParsedArgs p = parse_args(spec, argc, argv);
    if (p.stop == "--help") {
      spec.notes = modes_text(modes);
      std::printf("%s", help_text(spec).c_str());
      return 0;
    }
    if (p.given("--profile")) profile::set_enabled(true);
    Experiment exp = Experiment::load(p.operands.front(), p.texts("--set"));
    JsonReader r = exp.reader();
    const speed::SpeedConfig cfg = speed::parse_speed_config(r);
    const speed::SpeedReport rep = speed::run_speed(cfg, !p.given("--quiet"));
    speed::write_speed_report(cfg, rep);
    std::printf("%s\nwrote %s.json, %s.md and %s.csv\n", speed::report_markdown(cfg, rep).c_str(), cfg.out.c_str(),
                cfg.out.c_str(), cfg.out.c_str());
    return 0;
  });
}
