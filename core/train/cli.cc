#include "train/cli.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "base/gemm.h"
#include "twin_version.h"   // generated at build time (cmake/version.cmake)

namespace twin {

std::string cli_usage(const std::string& prog, const std::vector<std::string>& task_flags) {
  std::string u = "usage: " + prog +
                  " <experiment.json> [--set key=value ...] [--resume] [--eval-only] [--print-config] [--threads N] [--seed N | --seeds N,N,...]";
  for (const auto& f : task_flags) u += " [" + f + " N]";
  return u;
}

std::string cli_help(const std::string& prog, const std::vector<std::string>& task_flags, const std::string& extra) {
  std::string h = cli_usage(prog, task_flags) + "\n\n";
  h += "Trains the experiment (one JSON file) into its run folder (out_dir, default runs/<name>), then evaluates the best\n"
       "dev model on dev and test and writes summary.json beside the outputs its metrics come from.\n\n"
       "Options:\n"
       "  --set key.path=value  override any experiment key (JSON value: 1, true, \"text\", [1,2], {...})\n"
       "  --resume              continue the run in out_dir from its checkpoint, with the settings stored in its\n"
       "                        config.resolved.json; only train.max_epochs, train.max_steps, train.max_minutes,\n"
       "                        threads, train.optim.lr and train.optim.clip_norm may change\n"
       "  --eval-only           evaluate the run's best model (model.best.bin) into eval.json\n"
       "  --print-config        print the resolved experiment (every key, defaults filled in, as config.resolved.json\n"
       "                        would hold it) and exit; reads and checks the data like a run, writes nothing\n"
       "  --print-params        print the model's parameter table as JSON (name, rows, cols, count; total) and exit;\n"
       "                        reads the data like a run, writes nothing\n"
       "  --threads N           threads for this invocation (default: the experiment's \"threads\")\n"
       "  --seed N              run with seed N in <out_dir>_s<N>\n"
       "  --seeds N,N,...       one run per seed, one after another (<out_dir>_s<N> each)\n";
  for (const auto& f : task_flags) h += "  " + f + " N" + std::string(f.size() < 18 ? 18 - f.size() : 1, ' ') + "(this task's own flag; see README)\n";
  h += "  --help, -h            this text\n"
       "  --version             version, git revision and matrix-product backends\n"
       "  --print-keys          every experiment key this task reads (type, default, range, meaning) as JSON\n";
  if (!extra.empty()) h += "\n" + extra;
  h += "\nExperiment keys: experiments/KEYS.md (every key, its type, default and range, and the tasks that read it);\n"
       "a key the task does not read is an error. config.resolved.json in a run\n"
       "folder lists every key with the value used (defaults included). Exit codes: 0 done, 2 bad input (one line\n"
       "naming the file or key), 3 non-finite loss (checkpoint kept), 130 stopped by a signal (resume with --resume).\n";
  return h;
}

std::string keys_json(const std::vector<KeyDoc>& docs) {
  nlohmann::json out = nlohmann::json::array();
  for (const KeyDoc& d : docs)
    out.push_back({{"key", d.key}, {"type", d.type}, {"default", d.def}, {"allowed", d.allowed}, {"doc", d.doc},
                   {"required", d.required}});
  return out.dump(1);
}

std::string version_text(const std::string& prog) {
#ifndef TW_VERSION
#define TW_VERSION "unknown"
#endif
  const std::string gemm = gemm_backends_text();
  const char* mpi = dist::built_with_mpi() ? ", MPI data-parallel training" : "";
  return prog + " (twinrnn " + TW_VERSION + ", git " + TW_GIT_REVISION + "), matrix products: " + gemm + mpi +
         ", " + (sizeof(Real) == 4 ? "float32" : "float64") + "\n";
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

const std::vector<std::string>& resume_budget_keys() {
  // The budget, the threads, and the two knobs that bring back a run stopped on a non-finite loss.
  static const std::vector<std::string> keys = {"train.max_epochs", "train.max_steps", "train.max_minutes", "threads",
                                                "train.optim.lr", "train.optim.clip_norm"};
  return keys;
}

namespace {

// The value at a dotted key path, or nullptr.
const nlohmann::json* at_path(const nlohmann::json& root, const std::string& path) {
  const nlohmann::json* node = &root;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    const std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!node->is_object() || !node->contains(part)) return nullptr;
    node = &(*node)[part];
    if (dot == std::string::npos) return node;
    start = dot + 1;
  }
}

// Leaves of `a` whose value differs from (or is absent in) `b`, as dotted paths.
void differing_leaves(const nlohmann::json& a, const nlohmann::json& b, const std::string& prefix,
                      std::vector<std::string>& out) {
  for (auto it = a.begin(); it != a.end(); ++it) {
    const std::string path = prefix.empty() ? it.key() : prefix + "." + it.key();
    const nlohmann::json* other = b.is_object() && b.contains(it.key()) ? &b[it.key()] : nullptr;
    if (it.value().is_object() && other && other->is_object()) differing_leaves(it.value(), *other, path, out);
    else if (!other || *other != it.value()) out.push_back(path);
  }
}

bool is_budget_key(const std::string& key) {
  const auto& keys = resume_budget_keys();
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

}  // namespace

Experiment resume_experiment(const std::string& stored_path, const Experiment& fresh, const CliArgs& args,
                             const UnreadKeys& unread_train) {
  nlohmann::json stored;
  try {
    stored = nlohmann::json::parse(read_file(stored_path));
  } catch (const nlohmann::json::exception& e) {
    TW_FAIL("--resume: ", stored_path, " is not valid JSON (", e.what(), "); the run's settings cannot be recovered");
  }
  TW_CHECK(stored.is_object(), "--resume: ", stored_path, " is not a JSON object");
  stored.erase("run");   // the typed copy of the top-level run keys (to_json(RunConfig)), not an experiment key
  // Runs started before a task refused the train keys it does not read stored them (every train key was
  // written): they were never read, so dropping them changes nothing.
  if (auto t = stored.find("train"); t != stored.end() && t->is_object())
    for (const auto& [k, why] : unread_train) t->erase(k);
  // The run lives where it was found (a moved or copied run folder continues in its new place).
  stored["out_dir"] = std::filesystem::path(stored_path).parent_path().string();
  std::vector<std::string> keep;   // this invocation's --set flags that apply on top of the stored settings
  for (const auto& o : args.overrides) {
    nlohmann::json probe = nlohmann::json::object();
    const std::string key = apply_override(probe, o);
    if (key == "out_dir" || key == "seed") continue;   // they locate the run: already resolved to this folder
    // An object value (--set train.optim={...}) changes each of its leaves: budget leaves may change, the others
    // must repeat the stored value.
    const nlohmann::json* now = at_path(probe, key);
    const nlohmann::json* was = at_path(stored, key);
    std::vector<std::string> changed;
    if (now && now->is_object() && was && was->is_object()) differing_leaves(*now, *was, key, changed);
    else if (!now || !was || *now != *was) changed.push_back(key);
    std::vector<std::string> refused;
    for (const auto& c : changed)
      if (!is_budget_key(c)) refused.push_back(c);
    if (!refused.empty()) {
      std::string allowed;
      for (const auto& b : resume_budget_keys()) allowed += (allowed.empty() ? "" : ", ") + b;
      const nlohmann::json* old_value = at_path(stored, refused.front());
      TW_FAIL("--resume: --set ", o, " would change the run's ", refused.front(), " (",
              old_value ? old_value->dump() : std::string("not set"), " in ", stored_path, "); a resumed run continues "
              "with the settings it was started with, and only ", allowed, " may change (HINT: start a new run in ",
              "another out_dir to change it)");
    }
    keep.push_back(o);
  }
  // The experiment file may have been edited since the run started: say where, and keep the stored values.
  std::vector<std::string> diff;
  differing_leaves(fresh.json(), stored, "", diff);
  std::string note;
  for (const auto& k : diff)
    if (k != "out_dir" && k != "seed" && k != "threads" && !is_budget_key(k)) note += (note.empty() ? "" : ", ") + k;
  if (!note.empty() && dist::is_root())
    std::fprintf(stderr, "note: --resume continues with the settings stored in %s; the experiment file and --set "
                 "flags now differ at: %s (ignored)\n", stored_path.c_str(), note.c_str());
  return Experiment::from_json(std::move(stored), stored_path, keep);
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
    if (s == "--help" || s == "-h") {
      a.help = true;
      return a;   // whatever else was given: the help is what was asked for
    }
    if (s == "--version") {
      a.version = true;
      return a;
    }
    if (s == "--print-keys") {
      a.print_keys = true;
      return a;
    }
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
    } else if (s == "--print-config") {
      a.print_config = true;
    } else if (s == "--print-params") {
      a.print_params = true;
    } else if (s == "--threads") {
      a.threads = static_cast<int>(parse_int_flag(s, value(i, s), 1, 256, "a number"));
    } else if (s == "--seed" || s == "--seeds") {
      TW_CHECK(a.seeds.empty(), "--seed / --seeds given twice; ", usage);
      a.seeds = parse_seed_list(s, value(i, s), s == "--seeds");
    } else if (std::find(task_flags.begin(), task_flags.end(), s) != task_flags.end()) {
      a.task_flags[s] = value(i, s);
    } else if (s.rfind("--", 0) == 0) {
      std::vector<std::string> known = {"--set", "--resume", "--eval-only", "--print-config", "--print-params", "--threads",
                                        "--seed", "--seeds", "--help", "--version", "--print-keys"};
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
  TW_CHECK(!(a.print_params && (a.resume || a.eval_only || a.print_config)),
           "--print-params prints the parameter table of a fresh build of the model and exits; it takes none of ",
           "--resume, --eval-only, --print-config");
  return a;
}

nlohmann::json params_json(const ParamStore& store) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& p : store.all())
    rows.push_back({{"name", p->name}, {"rows", p->value.rows()}, {"cols", p->value.cols()}, {"count", p->value.size()}});
  return {{"total", store.total_size()}, {"params", rows}};
}

bool summary_covers(const std::string& path, long step) {
  if (!file_exists(path)) return false;
  const nlohmann::json s = nlohmann::json::parse(read_file(path), nullptr, /*allow_exceptions=*/false);
  return s.is_object() && s.contains("steps") && s["steps"].is_number_integer() && s["steps"].get<long>() == step;
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
    s["stop_reason"] = std::string(stop_reason_name(out->stop_reason));
    s["wall_seconds"] = out->wall_seconds;
    s["train_units_per_s"] = out->train_seconds > 0 ? out->train_units / out->train_seconds : 0.0;
    s["best_dev"] = out->best.values;
  }
  return s;
}

}  // namespace twin
