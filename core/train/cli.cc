#include "train/cli.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>

namespace twin {

std::string cli_usage(const std::string& prog, const std::vector<std::string>& task_flags) {
  std::string u = "usage: " + prog +
                  " <experiment.json> [--set key=value ...] [--resume] [--eval-only] [--threads N] [--seed N | --seeds N,N,...]";
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

// "1234,1,2" for --seeds (at least one, no repeats), one number for --seed; each in [0, 2^53] so that it
// survives the JSON round trip of config.resolved.json exactly.
static std::vector<std::uint64_t> parse_seed_list(const std::string& flag, const std::string& value, bool many) {
  std::vector<std::uint64_t> seeds;
  size_t start = 0;
  while (true) {
    const size_t comma = value.find(',', start);
    const std::string one = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto n = static_cast<std::uint64_t>(parse_int_flag(flag, one, 0, 1L << 53, "a seed (a whole number)"));
    TW_CHECK(std::find(seeds.begin(), seeds.end(), n) == seeds.end(), flag, " lists seed ", n, " twice");
    seeds.push_back(n);
    if (comma == std::string::npos) break;
    TW_CHECK(many, "--seed takes one seed, got '", value, "' (HINT: --seeds ", value, " runs one run per seed)");
    start = comma + 1;
  }
  return seeds;
}

void apply_seed(RunConfig& run, std::uint64_t seed) {
  run.seed = seed;
  run.out_dir += "_s" + std::to_string(seed);
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
    } else if (s == "--seed" || s == "--seeds") {
      TW_CHECK(a.seeds.empty(), "--seed / --seeds given twice; ", usage);
      a.seeds = parse_seed_list(s, value(i, s), s == "--seeds");
    } else if (std::find(task_flags.begin(), task_flags.end(), s) != task_flags.end()) {
      a.task_flags[s] = value(i, s);
    } else if (s.rfind("--", 0) == 0) {
      std::vector<std::string> known = {"--set", "--resume", "--eval-only", "--threads", "--seed", "--seeds", "--help"};
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
                      {"seed", run.seed},
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
