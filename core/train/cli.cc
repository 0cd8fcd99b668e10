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

CommandSpec train_command(const std::string& prog, const std::vector<OptionSpec>& task_flags) {
  CommandSpec c(prog, "<experiment.json>", "experiment file");
  c.about =
      "Trains the experiment (one JSON file) into its run folder (out_dir, default runs/<name>), then evaluates\n"
      "the best dev model on dev and test and writes summary.json beside the outputs its metrics come from.\n";
  using O = OptionSpec;
  c.options = {
      set_option(),
      {"--resume", "", "continue the run in out_dir from its checkpoint, with the settings stored in its\n"
                       "config.resolved.json; only train.max_epochs, train.max_steps, train.max_minutes,\n"
                       "threads, train.optim.lr and train.optim.clip_norm may change", O::kSwitch},
      {"--eval-only", "", "evaluate the run's best model (model.best.bin) into eval.json", O::kSwitch},
      {"--print-config", "", "print the resolved experiment (every key, defaults filled in, as\n"
                             "config.resolved.json would hold it) and exit; reads and checks the data like a\n"
                             "run, writes nothing", O::kSwitch},
      {"--print-params", "", "print the model's parameter table as JSON (name, rows, cols, count; total) and\n"
                             "exit; reads the data like a run, writes nothing", O::kSwitch, "-"},
      {"--threads", "N", "threads for this invocation (default: the experiment's \"threads\")"},
      {"--save-minutes", "M", "also save the resume checkpoint every M minutes of training, so a run killed\n"
                              "without a signal (kill -9, a machine or session ending) loses at most M minutes;\n"
                              "not an experiment key: it changes no result (default 0: at evaluations and\n"
                              "train.save_every only)"},
      {"--seed", "N", "run with seed N in <out_dir>_s<N>", O::kValue, "[--seed N | --seeds N,N,...]"},
      {"--seeds", "N,N,...", "one run per seed, one after another (<out_dir>_s<N> each)", O::kValue, "-"}};
  c.options.insert(c.options.end(), task_flags.begin(), task_flags.end());
  c.options.push_back({"--version", "", "version, git revision and matrix-product backends", O::kStop, "-"});
  c.options.push_back({"--print-keys", "", "every experiment key this task reads (type, default, range, meaning)\nas JSON",
                       O::kStop, "-"});
  c.notes =
      "Experiment keys: experiments/KEYS.md (every key, its type, default and range, and the tasks that read it);\n"
      "a key the task does not read is an error. config.resolved.json in a run folder lists every key with the\n"
      "value used (defaults included). Exit codes: 0 done, 2 bad input (one line naming the file or key),\n"
      "3 non-finite loss (checkpoint kept), 130 stopped by a signal (resume with --resume).\n";
  return c;
}

std::string cli_help(const std::string& prog, const std::vector<OptionSpec>& task_flags,
                     const std::vector<CommandMode>& modes) {
  CommandSpec c = train_command(prog, task_flags);
  const std::string listed = modes_text(modes);
  if (!listed.empty()) c.notes = listed + "\n" + c.notes;
  return help_text(c);
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

CliArgs parse_cli(int argc, char** argv, const std::string& prog, const std::vector<OptionSpec>& task_flags) {
  const CommandSpec spec = train_command(prog, task_flags);
  const ParsedArgs p = parse_args(spec, argc, argv);
  CliArgs a;
  a.command_line = p.command_line;
  a.help = p.stop == "--help";
  a.version = p.stop == "--version";
  a.print_keys = p.stop == "--print-keys";
  if (!p.stop.empty()) return a;
  a.config = p.operands.front();
  for (const std::string& kv : p.texts("--set")) {
    TW_CHECK(kv.find('=') != std::string::npos, "--set expects key=value, got '", kv, "'");
    a.overrides.push_back(kv);
  }
  a.resume = p.given("--resume");
  a.eval_only = p.given("--eval-only");
  a.print_config = p.given("--print-config");
  a.print_params = p.given("--print-params");
  a.threads = static_cast<int>(p.integer("--threads", 1, 256, 0, "a number"));
  a.save_minutes = p.number("--save-minutes", 0, 1e7, 0);
  for (const char* flag : {"--seed", "--seeds"}) {
    if (!p.given(flag)) continue;
    TW_CHECK(a.seeds.empty() && p.texts(flag).size() == 1, "--seed / --seeds given twice; ", usage_line(spec));
    a.seeds = parse_seed_list(flag, p.text(flag), std::string(flag) == "--seeds");
  }
  for (const OptionSpec& f : task_flags)
    if (p.given(f.name)) a.task_flags[f.name] = p.text(f.name);
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
