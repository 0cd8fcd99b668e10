// `speed peers` (speed_peers.h): one sitting, every program in turn, a process per measurement.
#include "speed_peers.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/check.h"
#include "base/file_io.h"
#include "base/json_reader.h"
#include "base/threads.h"
#include "onednn_lm.h"
#include "speed_bench.h"
#include "train/experiment.h"
#include "train/records_csv.h"

extern char** environ;

namespace twin::speed {

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<std::string> peers_round_order(const std::vector<std::string>& programs, int round) {
  std::vector<std::string> order = programs;
  if (round % 2 == 1) std::reverse(order.begin(), order.end());
  return order;
}

namespace {

// The cells torch_reference.py has a PyTorch form of (its TORCH_CELLS), as bare names.
bool torch_has(const SpeedCell& c) {
  static const std::vector<std::string> kCells = {"lstm", "gru", "atr", "lrn", "ran", "sru"};
  return !c.object && std::find(kCells.begin(), kCells.end(), c.name) != kCells.end();
}

struct Child {
  int status = -1;        // waitpid status
  double wall_s = 0, peak_rss_mb = 0;
};

// Runs argv with stdout and stderr into the two files; waits (wait4: the child's own peak RSS).
Child run_child(const std::vector<std::string>& argv, const std::string& out_path, const std::string& err_path) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  Stopwatch sw;
  const int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  TW_CHECK(rc == 0, "speed peers: cannot start '", argv[0], "': ", std::strerror(rc));
  Child c;
  rusage ru{};
  while (wait4(pid, &c.status, 0, &ru) < 0) TW_CHECK(errno == EINTR, "speed peers: wait4: ", std::strerror(errno));
  c.wall_s = sw.seconds();
  c.peak_rss_mb = static_cast<double>(ru.ru_maxrss) / 1024.0;
  return c;
}

std::string quoted(const std::vector<std::string>& argv) {
  std::string s;
  for (const std::string& a : argv) s += (s.empty() ? "" : " ") + (a.find_first_of(" \"'[]{}") == std::string::npos ? a : "'" + a + "'");
  return s;
}

struct Program {
  std::string name;
  bool (*has)(const SpeedCell&);
};

// A one-configuration copy of the experiment: the cell, the shape and the thread count, written out by `out`.
json one_config(const SpeedConfig& base, const SpeedCell& cell, const SpeedShape& shape, int threads,
                const std::string& out) {
  SpeedConfig c = base;
  c.cells = {cell};
  c.shapes = {shape};
  c.threads = {threads};
  c.out = out;
  return to_json(c);
}

json spread(const std::vector<double>& v) {
  if (v.empty()) return {{"n", 0}};
  return {{"n", v.size()}, {"median", median_of(v)}, {"min", *std::min_element(v.begin(), v.end())},
          {"max", *std::max_element(v.begin(), v.end())}};
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// "12,345 (12,001–12,560)" from a spread of words/s; "–" when the program has no run.
std::string words_cell(const json& s) {
  if (!s.contains("median")) return "–";
  return thousands(s["median"]) + " (" + thousands(s["min"]) + "–" + thousands(s["max"]) + ")";
}

std::string ratio_cell(const json& s) {
  if (!s.contains("median")) return "–";
  return fmt("%.2f", s["median"]) + " (" + fmt("%.2f", s["min"]) + "–" + fmt("%.2f", s["max"]) + ")";
}

// The numbers a run's record takes from its report (the one-configuration report the program wrote).
void take_report_numbers(json& run, const std::string& path) {
  const json rep = parse_json_text(read_file(path), path);
  try {
    const json& rec = rep.at("records").at(0);
    for (const char* k : {"train_words_s", "infer_words_s", "train_gflops", "params"}) run[k] = rec.at(k);
    for (const char* k : {"fma_peak_gflops", "fma_peak_bits", "fma_peak_256_gflops"})
      if (rec.contains(k)) run[k] = rec[k];
    run["tool"] = rep.value("tool", run.value("program", std::string("?")));
  } catch (const json::exception& e) {
    TW_FAIL(path, ": not a speed report with one record (", e.what(), ")");
  }
}

}  // namespace

CommandSpec peers_command() {
  CommandSpec c("speed peers", "<experiment.json>", "experiment file");
  c.summary = "ours, the oneDNN reference (speed onednn) and PyTorch (torch_reference.py) in one sitting, a process\n"
              "per measurement, the programs alternated round by round; <out>.json/.md/.csv and <out>.runs/";
  c.options = {set_option(),
               {"--rounds", "N", "rounds per configuration (default 4; even, so every program holds each turn equally)"},
               {"--torch", "auto|off|PYTHON", "PyTorch: auto (/usr/bin/python3 when torch imports), off, or a python"},
               {"--torch-script", "PATH", "torch_reference.py (default tasks/speed/torch_reference.py)"},
               {"--from-runs", "", "measure nothing: the summary, ratios and tables again from <out>.json's runs and\n"
                                   "their reports in <out>.runs/", OptionSpec::kSwitch},
               {"--quiet", "", "no progress lines", OptionSpec::kSwitch}};
  return c;
}

namespace {

// Medians per program x configuration (min-max over rounds), and the paired per-round ratios ours / each peer.
std::pair<json, json> summarize(const SpeedConfig& cfg, const std::vector<std::string>& names, const json& runs) {
  json summary = json::array(), ratios = json::array();
  // The true peak of a thread count: the highest any of our processes measured with it (each measures its own,
  // best of three short loops; a busier moment gives less, never more).
  std::map<int, json> peak;
  for (const json& run : runs)
    if (run["ok"] && run["program"] == "twinrnn" && run.contains("fma_peak_gflops")) {
      json& best = peak[run["threads"].get<int>()];
      if (best.is_null() || run["fma_peak_gflops"].get<double>() > best["fma_peak_gflops"].get<double>()) best = run;
    }
  for (int threads : cfg.threads)
    for (const SpeedShape& shape : cfg.shapes)
      for (const SpeedCell& cell : cfg.cells) {
        auto of = [&](const std::string& prog) {
          std::map<int, json> by_round;
          for (const json& run : runs)
            if (run["ok"] && run["program"] == prog && run["cell"] == cell.name && run["shape"] == shape.name &&
                run["threads"] == threads)
              by_round[run["round"].get<int>()] = run;
          return by_round;
        };
        const std::map<int, json> ours = of("twinrnn");
        for (const std::string& prog_name : names) {
          const std::map<int, json> mine = of(prog_name);
          if (mine.empty()) continue;
          std::vector<double> train, infer, rss, gflops;
          for (const auto& [round, run] : mine) {
            train.push_back(run["train_words_s"]), infer.push_back(run["infer_words_s"]);
            rss.push_back(run["peak_rss_mb"]), gflops.push_back(run["train_gflops"]);
          }
          json s = {{"program", prog_name}, {"cell", cell.name}, {"shape", shape.name}, {"threads", threads},
                    {"embed", shape.embed}, {"hidden", shape.hidden}, {"layers", shape.layers},
                    {"params", mine.begin()->second["params"]}, {"train_words_s", spread(train)},
                    {"infer_words_s", spread(infer)}, {"train_gflops", spread(gflops)}, {"peak_rss_mb", spread(rss)}};
          if (peak.count(threads)) {
            const double top = peak[threads]["fma_peak_gflops"];
            s["fma_peak_gflops"] = top;
            s["fma_peak_bits"] = peak[threads]["fma_peak_bits"];
            if (top > 0) s["peak_fraction"] = median_of(gflops) / top;
          }
          summary.push_back(std::move(s));
          if (prog_name == "twinrnn") continue;
          std::vector<double> rt, ri;
          for (const auto& [round, run] : mine)
            if (ours.count(round)) {
              rt.push_back(ours.at(round)["train_words_s"].get<double>() / run["train_words_s"].get<double>());
              ri.push_back(ours.at(round)["infer_words_s"].get<double>() / run["infer_words_s"].get<double>());
            }
          ratios.push_back({{"peer", prog_name}, {"cell", cell.name}, {"shape", shape.name}, {"threads", threads},
                            {"train", spread(rt)}, {"infer", spread(ri)}});
        }
      }

  return {summary, ratios};
}

// The tables: per shape x threads, every cell's words/s per program (median, min–max over rounds), the paired
// ratios ours / peer, and each program's peak RSS.
std::string peers_markdown(const SpeedConfig& cfg, const json& report) {
  const std::vector<std::string> names = report.at("programs").get<std::vector<std::string>>();
  const json &machine = report.at("machine"), &notes = report.at("notes"), &summary = report.at("summary"),
             &ratios = report.at("ratios");
  const int rounds = report.at("rounds");
  std::ostringstream md;
  md << "# Speed peers: word LM (vocabulary " << cfg.vocab << ", batch " << cfg.batch << ", BPTT " << cfg.bptt
     << "), one sitting\n\nMachine: " << machine.value("cpu", std::string("?")) << ", " << machine.value("cores", 0)
     << " logical cores; matrix products: " << machine.value("gemm", std::string("?")) << "; "
     << machine.value("date", std::string("?")) << ".\nPrograms: " << quoted(names) << "; " << rounds
     << " rounds per configuration, a process per run, the order reversed every other round. Words/s: median "
        "(min–max) over the rounds; ratio: ours / peer, paired by round.\n";
  for (const json& n : notes) md << "Note: " << n.get<std::string>() << ".\n";
  for (int threads : cfg.threads)
    for (const SpeedShape& shape : cfg.shapes) {
      md << "\n## " << shape.name << " (" << shape.layers << " x " << shape.hidden << ", embedding " << shape.embed
         << "), " << threads << " thread" << (threads == 1 ? "" : "s") << "\n\n| cell | phase |";
      for (const std::string& n : names) md << " " << n << " words/s |";
      for (size_t i = 1; i < names.size(); ++i) md << " ours / " << names[i] << " |";
      md << "\n|---|---|";
      for (size_t i = 0; i < 2 * names.size() - 1; ++i) md << "---:|";
      md << "\n";
      for (const SpeedCell& cell : cfg.cells)
        for (const std::string phase : {"train", "infer"}) {
          md << "| " << cell.name << " | " << phase << " |";
          for (const std::string& n : names) {
            json s;
            for (const json& x : summary)
              if (x["program"] == n && x["cell"] == cell.name && x["shape"] == shape.name && x["threads"] == threads)
                s = x[phase + "_words_s"];
            md << " " << words_cell(s) << " |";
          }
          for (size_t i = 1; i < names.size(); ++i) {
            json s;
            for (const json& x : ratios)
              if (x["peer"] == names[i] && x["cell"] == cell.name && x["shape"] == shape.name && x["threads"] == threads)
                s = x[phase];
            md << " " << ratio_cell(s) << " |";
          }
          md << "\n";
        }
    }
  return md.str();
}

// Fills the report's summary and ratios from its runs and writes <out>.json, .md and .csv.
void write_peers(const SpeedConfig& cfg, json report) {
  auto [summary, ratios] = summarize(cfg, report.at("programs").get<std::vector<std::string>>(), report.at("runs"));
  report["summary"] = summary;
  report["ratios"] = ratios;
  const std::string md = peers_markdown(cfg, report);
  json rows = json::array();
  for (const json& s : summary) {
    json row = {{"program", s["program"]}, {"cell", s["cell"]}, {"shape", s["shape"]}, {"threads", s["threads"]}};
    for (const char* k : {"train_words_s", "infer_words_s", "peak_rss_mb"})
      for (const char* q : {"median", "min", "max"}) row[std::string(k) + "_" + q] = s[k].value(q, 0.0);
    rows.push_back(std::move(row));
  }
  write_text_atomic(cfg.out + ".json", report.dump(2) + "\n");
  write_text_atomic(cfg.out + ".md", md);
  write_text_atomic(cfg.out + ".csv", records_csv(rows, {"program", "cell", "shape", "threads"}));
  std::printf("%s\nwrote %s.json, %s.md, %s.csv and %s.runs/\n", md.c_str(), cfg.out.c_str(), cfg.out.c_str(),
              cfg.out.c_str(), cfg.out.c_str());
}

}  // namespace

int peers_main(int argc, char** argv) {
  const std::optional<ParsedArgs> p = parse_args_or_help(peers_command(), argc, argv);
  if (!p) return 0;
  const int rounds = static_cast<int>(p->integer("--rounds", 1, 1000, 4));   // the flags first: no config read
  const bool verbose = !p->given("--quiet");
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  Experiment exp = Experiment::load(p->operands.front(), p->texts("--set"));
  JsonReader r = exp.reader();
  const SpeedConfig cfg = parse_speed_config(r);
  const std::string runs_dir = cfg.out + ".runs";

  if (p->given("--from-runs")) {   // the summary, ratios and tables again from a sitting's kept runs
    const std::string path = cfg.out + ".json";
    TW_CHECK(fs::exists(path), "--from-runs: no report ", path, " (give the experiment and --set out=... of the sitting)");
    json report = parse_json_text(read_file(path), path);
    TW_CHECK(report.is_object() && report.value("tool", std::string()) == "twinrnn speed peers", path,
             ": not a report of speed peers");
    TW_CHECK(report.contains("config") && report["config"] == to_json(cfg), path,
             ": its config is not this experiment's (the sitting's is echoed in its \"config\")");
    for (const char* k : {"runs", "programs", "notes", "machine", "rounds"})
      TW_CHECK(report.contains(k), path, ": missing key \"", k, "\"");
    for (json& run : report["runs"])
      if (run.value("ok", false)) take_report_numbers(run, runs_dir + "/" + run.at("report").get<std::string>());
    write_peers(cfg, report);
    return 0;
  }

  // The programs of this sitting.
  std::vector<Program> programs = {{"twinrnn", [](const SpeedCell&) { return true; }}};
  json notes = json::array();
  if (onednn_reference_available()) programs.push_back({"onednn", onednn_reference_has});
  else notes.push_back("onednn: this build has no oneDNN (libdnnl-dev); not measured");
  const std::string torch = p->text("--torch", "auto");
  const std::string script = p->text("--torch-script", "tasks/speed/torch_reference.py");
  std::string python;
  if (torch != "off") {
    python = torch == "auto" ? "/usr/bin/python3" : torch;
    TW_CHECK(torch == "auto" || fs::exists(python), "--torch ", torch,
             ": expected auto, off or the path of a python interpreter (no such file)");
    const bool script_ok = fs::exists(script);
    const bool imports = script_ok && std::system((python + " -c 'import torch' > /dev/null 2>&1").c_str()) == 0;
    if (torch != "auto") {
      TW_CHECK(script_ok, "--torch-script ", script, ": no such file (run from the repository's root, or give its path)");
      TW_CHECK(imports, "--torch ", torch, ": 'import torch' fails under it (Debian: apt-get install python3-torch)");
    }
    if (imports) programs.push_back({"pytorch", torch_has});
    else
      notes.push_back(std::string("pytorch: ") + (script_ok ? "'import torch' fails under " + python
                                                            : script + " not found") + "; not measured");
  } else {
    notes.push_back("pytorch: --torch off; not measured");
  }
  std::vector<std::string> names;
  for (const Program& pr : programs) names.push_back(pr.name);

  // An earlier sitting's runs are results: never mixed with or overwritten by this one's.
  TW_CHECK(!fs::exists(runs_dir) || (fs::is_directory(runs_dir) && fs::is_empty(runs_dir)), runs_dir,
           ": holds an earlier sitting's runs; move it away or write this sitting elsewhere (--set out=PREFIX)");
  fs::create_directories(runs_dir);
  json runs = json::array();
  for (int threads : cfg.threads)
    for (const SpeedShape& shape : cfg.shapes)
      for (const SpeedCell& cell : cfg.cells)
        for (int round = 0; round < rounds; ++round) {
          for (const std::string& prog : peers_round_order(names, round)) {
            const Program& pr = *std::find_if(programs.begin(), programs.end(), [&](const Program& x) { return x.name == prog; });
            if (!pr.has(cell)) continue;
            std::string safe = prog + "_" + cell.name + "_" + shape.name + "_t" + std::to_string(threads) + "_r" +
                               std::to_string(round + 1);
            for (char& ch : safe)
              if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '-' && ch != '.') ch = '_';
            const std::string base = runs_dir + "/" + safe;
            write_text_atomic(base + ".config.json", one_config(cfg, cell, shape, threads, base).dump(2) + "\n");
            std::vector<std::string> cmd;
            if (prog == "twinrnn") cmd = {self, base + ".config.json", "--quiet"};
            else if (prog == "onednn") cmd = {self, "onednn", base + ".config.json", "--quiet"};
            else
              cmd = {python, script, base + ".config.json", "--out", base, "--intra", "1", "--blas-threads",
                     std::to_string(threads)};
            const Child ch = run_child(cmd, base + ".stdout.txt", base + ".stderr.txt");
            json run = {{"program", prog}, {"cell", cell.name}, {"shape", shape.name}, {"threads", threads},
                        {"round", round + 1}, {"command", quoted(cmd)}, {"wall_s", ch.wall_s},
                        {"peak_rss_mb", ch.peak_rss_mb}, {"report", fs::path(base + ".json").filename().string()}};
            const bool ok = WIFEXITED(ch.status) && WEXITSTATUS(ch.status) == 0 && fs::exists(base + ".json");
            // The report's .json is the record; the .md and .csv the speed task writes beside it say the same.
            for (const char* ext : {".md", ".csv"}) fs::remove(base + ext);
            if (ok) {
              take_report_numbers(run, base + ".json");
              run["ok"] = true;
            } else {
              run["ok"] = false;
              run["exit"] = WIFEXITED(ch.status) ? WEXITSTATUS(ch.status) : 128 + WTERMSIG(ch.status);
              TW_CHECK(prog != "twinrnn", "speed peers: ", quoted(cmd), " failed (exit ", run["exit"].get<int>(),
                       "); its log: ", base, ".stderr.txt");
            }
            if (verbose)
              std::fprintf(stderr, "round %d %-7s %-6s %-7s threads %d: %s\n", round + 1, prog.c_str(), cell.name.c_str(),
                           shape.name.c_str(), threads,
                           ok ? (fmt("train %.0f", run["train_words_s"].get<double>()) +
                                 fmt(" infer %.0f words/s", run["infer_words_s"].get<double>()))
                                    .c_str()
                              : ("failed, exit " + std::to_string(run["exit"].get<int>())).c_str());
            runs.push_back(std::move(run));
          }
        }

  json machine = machine_info();
  const json report = {{"tool", "twinrnn speed peers"},
                       {"command", "speed " + p->command_line},
                       {"workload", "word LM, random ids, untied softmax, no dropout; train = fwd + bwd + clip 5 + SGD; "
                                    "words/s = bptt*batch / median step time (speed_bench.h); a process per run"},
                       {"machine", machine},
                       {"config", to_json(cfg)},
                       {"rounds", rounds},
                       {"order", "programs in the listed order in odd rounds, reversed in even ones"},
                       {"programs", names},
                       {"notes", notes},
                       {"runs", runs}};
  write_peers(cfg, report);
  return 0;
}

}  // namespace twin::speed
