// The command line every task binary shares:
//   build/bin/<task> <experiment.json> [--set key=value ...] [--resume] [--eval-only] [--threads N]
//                    [--seed N | --seeds N,N,...] [task flags, e.g. --dump-gates N]
// --seed N runs the experiment with seed N in <out_dir>_s<N>; --seeds runs one such run per seed, one after
// another (the seed changes initialisation, batch order and dropout, nothing else).
// run_main<TaskT>() loads and checks the experiment, trains with the shared trainer, evaluates the best
// model on dev and test and writes summary.json. Every user error is one line on stderr and exit code 2.
#pragma once
#include <concepts>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "base/gemm.h"
#include "base/memory_use.h"
#include "base/threads.h"
#include "train/args.h"
#include "train/checkpoint.h"
#include "train/dist.h"
#include "train/exit_codes.h"
#include "train/experiment.h"
#include "base/json_reader.h"
#include "train/run_dir.h"
#include "train/trainer.h"

namespace twin {

struct CliArgs {
  std::string config;
  std::vector<std::string> overrides;       // --set a.b=v
  bool resume = false;
  bool eval_only = false;
  bool print_config = false;                 // --print-config: print the resolved experiment and exit 0
  bool print_params = false;                 // --print-params: the parameter table as JSON (params_json), exit 0
  int threads = 0;                           // 0: from the experiment
  double save_minutes = 0;                   // --save-minutes: a timed resume checkpoint (TrainOptions)
  std::vector<std::uint64_t> seeds;          // --seed / --seeds; empty: the experiment's seed and out_dir
  bool help = false;                         // --help / -h: print cli_help() and exit 0
  bool version = false;                      // --version: print version_text() and exit 0
  bool print_keys = false;                   // --print-keys: the task's key reference rows as JSON, exit 0
  std::map<std::string, std::string> task_flags;   // --flag value, for flags the task declares
  std::string command_line;
};

// The training command line (train/args.h), with the task's own flags (each takes one value) among its options.
CommandSpec train_command(const std::string& prog, const std::vector<OptionSpec>& task_flags);
// Throws Error ending in the usage line on misuse.
CliArgs parse_cli(int argc, char** argv, const std::string& prog, const std::vector<OptionSpec>& task_flags);
// --help: the usage line, every option, the task's other modes (`nmt translate`, `cws segment`, ...) and where
// the experiment keys are documented.
std::string cli_help(const std::string& prog, const std::vector<OptionSpec>& task_flags,
                     const std::vector<CommandMode>& modes);
// --version: "<prog> (twinrnn X.Y.Z, git <rev>), GEMM: ..." with the product backends this build routes to.
std::string version_text(const std::string& prog);
// The keys a --resume may change (the run's budget and its thread count); every change is kept in command.txt.
const std::vector<std::string>& resume_budget_keys();
// --resume continues a run from the settings it was started with: the experiment is rebuilt from the run's
// stored config.resolved.json (not from the experiment file, which may have changed, nor from the --set flags
// of the first invocation, which need not be repeated). This invocation's --set flags apply on top when they
// name a budget key (resume_budget_keys) or repeat the stored value; any other change is an Error naming the
// key. out_dir and seed only locate the run. A note names the keys where the experiment file now differs.
Experiment resume_experiment(const std::string& stored_path, const Experiment& fresh, const CliArgs& args,
                             const UnreadKeys& unread_train = {});
// --print-params: {"total": N, "params": [{"name", "rows", "cols", "count"}, ...]} in creation order.
nlohmann::json params_json(const ParamStore& store);
// --print-keys: every key a task reads, as a JSON array of {key, type, default, allowed, doc, required}
// (tools/keys_md.py turns the tasks' arrays into experiments/KEYS.md).
std::string keys_json(const std::vector<KeyDoc>& docs);
// --seed N: the run's seed becomes N and its folder <out_dir>_s<N>, so that the runs of one experiment with
// several seeds sit side by side (results tables group them by the name without the suffix).
void apply_seed(RunConfig& run, std::uint64_t seed);
nlohmann::json run_summary(const std::string& task, const RunConfig& run, ParamStore& store, const TrainOutcome* out,
                           const Metrics& dev, const Metrics& test, const CliArgs& args);
// Whether the summary.json at `path` was written for a run that had trained `step` steps. A run killed after
// its last checkpoint and before its summary has none, or (when a raised budget continued a finished run) the
// stale one of the earlier invocation; an unreadable summary counts as missing, so the resume rewrites it.
bool summary_covers(const std::string& path, long step);

// A task binary's task: the trainer's hooks (train/task.h's TrainerTask) and
//   TaskT(JsonReader& root, const RunConfig&, const TrainConfig&, const CliArgs&)   consumes its own sections
//   static flags(), keys(), modes(), unread_train_keys()          its flags, --print-keys rows, its other modes
//                                                                 (`cws segment`, ...) and the train.* keys it does
//                                                                 not read (TaskDefaults)
//   nlohmann::json resolved() const                               its typed sections, for config.resolved.json
//   void finish(const std::string& run_dir, nlohmann::json& summary)   outputs after the final evaluation
template <class T>
concept Task = TrainerTask<T> && std::constructible_from<T, JsonReader&, const RunConfig&, const TrainConfig&,
                                                         const CliArgs&> &&
               requires(T& t, const T& c, nlohmann::json& summary) {
                 { T::flags() } -> std::same_as<std::vector<OptionSpec>>;
                 { T::keys() } -> std::same_as<std::vector<KeyDoc>>;
                 { T::modes() } -> std::same_as<std::vector<CommandMode>>;
                 { T::unread_train_keys() } -> std::same_as<UnreadKeys>;
                 { c.resolved() } -> std::same_as<nlohmann::json>;
                 t.finish(std::string{}, summary);
               };

// A task's --print-keys rows for one section: its heading ("the data (data.*)" unless `doc` says otherwise)
// and the rows of the section's ConfigTable.
template <class Table>
void append_section_keys(std::vector<KeyDoc>& out, const std::string& name, const Table& table, std::string doc = "") {
  out.push_back({name, "section", nlohmann::json::object(), "", doc.empty() ? "the " + name + " (" + name + ".*)" : doc,
                 false});
  table.append_docs({}, name + ".", out);
}
// The usual two sections, data.* and model.*.
template <class DataTable, class ModelTable>
std::vector<KeyDoc> data_model_keys(const DataTable& data, const ModelTable& model) {
  std::vector<KeyDoc> out;
  append_section_keys(out, "data", data);
  append_section_keys(out, "model", model);
  return out;
}

// Under mpirun (train/dist.h) every rank runs this; rank 0 alone writes the run folder and prints, and an
// error on any rank ends the whole job (MPI_Abort) with the rank named, so nothing waits forever.
namespace detail {
// One run: args.seeds is empty or holds the one seed of this run. Returns the process exit code; throws Error.
template <Task TaskT>
int run_once(const CliArgs& args, const char* prog, bool lead) {
    Experiment exp = Experiment::load(args.config, args.overrides);
    JsonReader root = exp.reader();
    RunConfig run = parse_run(root);
    if (args.threads > 0) run.threads = args.threads;
    if (!args.seeds.empty()) apply_seed(run, args.seeds.front());
    if (args.resume && file_exists(RunDir::join(run.out_dir, "config.resolved.json"))) {
      exp = resume_experiment(RunDir::join(run.out_dir, "config.resolved.json"), exp, args, TaskT::unread_train_keys());
      root = exp.reader();
      const RunConfig stored = parse_run(root);
      TW_CHECK(args.seeds.empty() || stored.seed == args.seeds.front(), "--resume: ", run.out_dir, " is a run of seed ",
               stored.seed, ", not ", args.seeds.front());
      const std::string folder = run.out_dir;   // where the run was found: it may have been moved or copied
      run = stored;
      run.out_dir = folder;
      if (args.threads > 0) run.threads = args.threads;
    }
    JsonReader train_r = root.child("train");
    TrainConfig tc = parse_train(train_r, TaskT::unread_train_keys());
    set_num_threads(run.threads);
    TaskT task(root, run, tc, args);
    root.finish();
    // Test hook: one rank fails while the others wait in their first collective (tests/test_mpi.cc).
    if (const char* f = std::getenv("TWIN_FAIL_ON_RANK"); f && dist::active() && std::atoi(f) == dist::rank())
      TW_FAIL("injected failure (TWIN_FAIL_ON_RANK=", f, "): one failing rank must end the whole job");

    nlohmann::json typed = task.resolved();
    typed["train"] = to_json(tc, TaskT::unread_train_keys());
    typed["run"] = to_json(run);
    // The top-level run keys as this run used them (--seed, --threads and --set change them after the file).
    for (const auto& [k, v] : typed["run"].items()) typed[k] = v;
    if (dist::active()) {   // before any collective that assumes the ranks agree (the parameter broadcast)
      nlohmann::json same = typed;
      same["run"].erase("threads");   // threads per rank may differ
      dist::check_same("the resolved experiment", same.dump(1));
      dist::check_same("the parameter table (from the config and the data's vocabularies)", task.params().table());
    }
    if (args.print_config) {   // before anything touches the run folder
      if (lead) std::printf("%s\n", exp.resolved(typed).dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
      return 0;
    }
    if (args.print_params) {   // the model this config builds, counted by the suite (tools/tune.py's matched arm)
      if (lead) std::printf("%s\n", params_json(task.params()).dump(1).c_str());
      return 0;
    }
    RunDir dir(run.out_dir);
    const std::string best = dir.path("model.best.bin");
    const std::string last = dir.path("checkpoint.last.bin");
    TW_CHECK(args.resume || args.eval_only || !(file_exists(best) || file_exists(last)), "run folder ",
             run.out_dir, " already holds a run; continue it with --resume, evaluate it with --eval-only, or ",
             "choose another out_dir (--set out_dir=...) — nothing was overwritten");
    TW_CHECK(!args.eval_only || file_exists(best), "--eval-only: no trained model at ", best,
             " (HINT: train first, or point out_dir at a finished run)");
    // A refused --resume or --eval-only must leave the run folder as it was: load (and so check) the checkpoint
    // before config.resolved.json, params.txt and command.txt below are written. train() loads it again.
    if (args.resume) {
      TW_CHECK(file_exists(last), "--resume: no checkpoint at ", last, " (HINT: a run saves it at each evaluation, ",
               "on SIGINT/SIGTERM and at the end)");
      NamedMats state;
      Progress at;
      detail::load_last(last, task.params(), *make_optimizer(tc.optim), state, at);
      // A run whose budget is spent has nothing left to train: say so and change nothing (no extra step, no
      // rewritten summary). Raising a budget key with --set continues it. A run killed after its last
      // checkpoint but before its summary was written is not done: it goes on to its final evaluation.
      const bool done = at.epoch > tc.max_epochs || (tc.max_steps > 0 && at.step >= tc.max_steps) ||
                        (tc.max_minutes > 0 && at.elapsed_s >= 60 * tc.max_minutes) ||
                        (tc.patience > 0 && at.stalled >= tc.patience);
      if (done && summary_covers(dir.path("summary.json"), at.step)) {
        if (lead)
          std::fprintf(stderr, "%s: %s has finished (epoch %d, step %ld; max_epochs %d, max_steps %ld, max_minutes %g, "
                       "patience %d): nothing to do, nothing changed (HINT: --set train.max_epochs=N or "
                       "train.max_steps=N with --resume trains on)\n", prog, run.out_dir.c_str(), at.epoch - 1 +
                       (at.batch > 0 ? 1 : 0), at.step, tc.max_epochs, tc.max_steps, tc.max_minutes, tc.patience);
        return 0;
      }
    }
    if (args.eval_only) load_params(best, task.params(), LoadMode::kStrict);
    if (!lead) {
      // written by rank 0
    } else if (!args.eval_only) {   // --eval-only leaves the training run's files as they are, but for its command
      exp.write_resolved(dir.path(""), typed);
      write_text_atomic(dir.path("params.txt"), task.params().table());
    } else {
      exp.append_command(dir.path(""));
    }
    if (lead)
      std::fprintf(stderr, "%s: %s -> %s%s\n%s", prog, args.config.c_str(), run.out_dir.c_str(),
                   dist::active() ? (" (" + std::to_string(dist::size()) + " ranks, data-parallel)").c_str() : "",
                   task.params().table().c_str());

    TrainOutcome out;
    if (!args.eval_only) {
      TrainOptions o;
      o.run = run;
      o.train = tc;
      o.run_dir = run.out_dir;
      o.resume = args.resume;
      o.save_minutes = args.save_minutes;
      o.config = exp.json();
      out = train(task, o);
      if (!evaluates_after(out.stop_reason) || !lead) {
        dist::barrier();
        return exit_code(out.stop_reason);
      }
    } else if (!lead) {
      return 0;   // rank 0 evaluates
    }
    // The best dev model when there is one; otherwise (stopped before any evaluation) the current parameters.
    const bool have_best = file_exists(best);
    if (have_best && !args.eval_only) load_params(best, task.params(), LoadMode::kStrict);   // eval-only: above
    Metrics dev = task.evaluate(Split::kDev);
    Metrics test = task.evaluate(Split::kTest);
    nlohmann::json summary = run_summary(prog, run, task.params(), args.eval_only ? nullptr : &out, dev, test, args);
    summary["evaluated_model"] = have_best ? "model.best.bin" : "current parameters (no dev evaluation yet)";
    task.finish(run.out_dir, summary);
    // The process's memory high-water mark, after training, the final evaluations and the task's own report
    // (rank 0's under MPI): what a run of this experiment needs, its largest batch included.
    summary["peak_rss_mb"] = peak_rss_mb();
    write_text_atomic(dir.path(args.eval_only ? "eval.json" : "summary.json"), summary.dump(2) + "\n");
    std::printf("%s\n", summary.dump(2).c_str());
    if (!args.eval_only) dist::barrier();
    return 0;
}
}  // namespace detail

// A task binary's main: the mode argv[1] names (TaskT::modes()), else training.
template <Task TaskT>
int run_main(int argc, char** argv, const char* prog) {
  if (const std::optional<int> rc = run_named_mode(prog, TaskT::modes(), argc, argv)) return *rc;
  dist::init(&argc, &argv);
  const bool lead = dist::is_root();   // rank 0 (or the only process)
  return run_with_exit_codes(prog, [&] {
    const CliArgs args = parse_cli(argc, argv, prog, TaskT::flags());
    if (args.print_keys) {
      std::vector<KeyDoc> docs = experiment_key_docs(TaskT::unread_train_keys());
      for (KeyDoc& d : TaskT::keys()) docs.push_back(std::move(d));
      if (lead) std::printf("%s\n", keys_json(docs).c_str());
      dist::finalize();
      return 0;
    }
    if (args.help || args.version) {
      if (lead)
        std::printf("%s",
                    args.help ? cli_help(prog, TaskT::flags(), TaskT::modes()).c_str() : version_text(prog).c_str());
      dist::finalize();
      return 0;
    }
    install_stop_signals();
    // The matrix-product libraries are probed (and TWIN_GEMM_BACKENDS read) before anything is written, so a
    // bad value stops the run before its folder exists.
    gemm_backends();
    int rc = 0;
    if (args.seeds.size() <= 1) {
      rc = detail::run_once<TaskT>(args, prog, lead);
    } else {
      for (size_t k = 0; k < args.seeds.size() && rc == 0; ++k) {   // a failed or stopped seed ends the series
        CliArgs one = args;
        one.seeds = {args.seeds[k]};
        if (lead) std::fprintf(stderr, "%s: seed %zu of %zu: %llu\n", prog, k + 1, args.seeds.size(),
                               static_cast<unsigned long long>(args.seeds[k]));
        rc = detail::run_once<TaskT>(one, prog, lead);
      }
    }
    dist::finalize();
    return rc;
  });
}

}  // namespace twin
