#include "train/cli.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>

namespace twin {

std::string cli_usage(const std::string& prog, const std::vector<std::string>& task_flags) {
  std::string u = "usage: " + prog + " <experiment.json> [--set key=value ...] [--resume] [--eval-only] [--threads N]";
  for (const auto& f : task_flags) u += " [" + f + " N]";
  return u;
}

long parse_int_flag(const std::string& flag, const std::string& value, long lo, long hi, const std::string& what) {
  char* end = nullptr;
  errno = 0;
  const long n = std::strtol(value.c_str(), &end, 10);
  // strtol skips leading blanks and stops at the first non-digit; the value must be the number and nothing else.
  const bool whole = !value.empty() && !std::isspace(static_cast<unsigned char>(value[0])) && *end == 0 && errno == 0;
  TW_CHECK(whole && n >= lo && n <= hi, flag, " expects ", what, " in [", lo, ", ", hi, "], got '", value, "'");
  return n;
}

CliArgs parse_cli(int argc, char** argv, const std::string& prog, const std::vector<std::string>& task_flags) {
  CliArgs a;
  for (int i = 0; i < argc; ++i) a.command_line += (i ? " " : "") + std::string(argv[i]);
  const std::string usage = cli_usage(prog, task_flags);
  auto value = [&](int& i, const std::string& flag) -> std::string {
    TW_CHECK(i + 1 < argc, flag, " needs a value; ", usage);
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    if (s == "--help" || s == "-h") TW_FAIL(usage);
    if (s == "--set") {
      const std::string kv = value(i, s);
      TW_CHECK(kv.find('=') != std::string::npos, "--set expects key=value, got '", kv, "'");
      a.overrides.push_back(kv);
    } else if (s.rfind("--set=", 0) == 0) {
      a.overrides.push_back(s.substr(6));
    } else if (s == "--resume") {
      a.resume = true;
    } else if (s == "--eval-only") {
      a.eval_only = true;
    } else if (s == "--threads") {
      a.threads = static_cast<int>(parse_int_flag(s, value(i, s), 1, 256, "a number"));
    } else if (std::find(task_flags.begin(), task_flags.end(), s) != task_flags.end()) {
      a.task_flags[s] = value(i, s);
    } else if (s.rfind("--", 0) == 0) {
      std::vector<std::string> known = {"--set", "--resume", "--eval-only", "--threads", "--help"};
      known.insert(known.end(), task_flags.begin(), task_flags.end());
      const std::string guess = closest_name(s, known);
      TW_FAIL("unknown option '", s, "'", guess.empty() ? "" : " (did you mean '" + guess + "'?)", "; ", usage);
    } else {
      TW_CHECK(a.config.empty(), "more than one experiment file given ('", a.config, "' and '", s, "'); ", usage);
      a.config = s;
    }
  }
  TW_CHECK(!a.config.empty(), "no experiment file given; ", usage);
  TW_CHECK(!(a.resume && a.eval_only), "--resume and --eval-only exclude each other");
  return a;
}

nlohmann::json run_summary(const std::string& task, const RunConfig& run, ParamStore& store, const TrainOutcome* out,
                           const Metrics& dev, const Metrics& test, const CliArgs& args) {
  nlohmann::json s = {{"task", task},
                      {"name", run.name},
                      {"params", store.total_size()},
                      {"threads", run.threads},
                      {"dev", dev.values},
                      {"test", test.values},
                      {"command", args.command_line}};
  if (out) {
    s["steps"] = out->steps;
    s["epochs_done"] = out->epochs_done;
    s["stop_reason"] = out->stop_reason;
    s["wall_seconds"] = out->wall_seconds;
    s["train_units_per_s"] = out->train_seconds > 0 ? out->train_units / out->train_seconds : 0.0;
    s["best_dev"] = out->best.values;
  }
  return s;
}

}  // namespace twin
