// The task tests' smoke runs: build a task from an experiment JSON (a smoke config with its data and out_dir
// pointed at temporary folders) and train it quietly on one thread with the shared trainer; and the task
// binaries' command lines run in-process (training through run_main, prediction modes through run_mode).
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/check.h"
#include "base/threads.h"
#include "train/cli.h"
#include "train/predict_cli.h"

namespace twin::test {

// experiments/smoke/<file> (for example "lm_atr.json") reading its data from data_dir and writing its run to
// out_dir: the config every task's smoke and command-line tests start from.
inline nlohmann::json smoke_config(const std::string& file, const std::string& data_dir, const std::string& out_dir) {
  const std::string path = std::string(TW_SOURCE_DIR) + "/experiments/smoke/" + file;
  std::ifstream in(path);
  TW_CHECK(in, "cannot read the smoke config ", path);
  nlohmann::json config = nlohmann::json::parse(in);
  config["data"]["dir"] = data_dir;
  config["out_dir"] = out_dir;
  return config;
}

template <class TaskT>
struct SmokeRun {
  std::unique_ptr<TaskT> task;
  TrainOutcome out;
};

template <class TaskT>
SmokeRun<TaskT> train_smoke(const nlohmann::json& config, const std::string& name, const std::string& run_dir) {
  JsonReader root(config, name);
  RunConfig rc = parse_run(root);
  JsonReader tr = root.child("train");
  TrainConfig tc = parse_train(tr);
  CliArgs args;
  SmokeRun<TaskT> s;
  s.task = std::make_unique<TaskT>(root, rc, tc, args);
  root.finish();
  set_num_threads(1);
  TrainOptions o;
  o.run = rc;
  o.train = tc;
  o.run_dir = run_dir;
  o.quiet = true;
  o.config = config;
  s.out = train(*s.task, o);
  return s;
}

struct CliResult {
  int code = -1;
  std::string out, err;   // captured stdout and stderr
};

// Runs a main-like `f(argc, argv)` on `args` (args[0]: the program or mode name) with stdout and stderr captured.
template <class F>
CliResult run_cli(F&& f, std::vector<std::string> args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::testing::internal::CaptureStderr();
  ::testing::internal::CaptureStdout();
  CliResult r;
  r.code = f(static_cast<int>(args.size()), argv.data());
  r.out = ::testing::internal::GetCapturedStdout();
  r.err = ::testing::internal::GetCapturedStderr();
  return r;
}

// `<prog> <experiment.json>` through the task binary's run_main: trains, evaluates and finishes the run.
template <class TaskT>
CliResult run_task(const std::string& prog, const std::string& experiment, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {prog, experiment};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_cli([&](int argc, char** argv) { return run_main<TaskT>(argc, argv, prog.c_str()); }, args);
}

// `<label> <args...>` through run_mode, as the binary's main dispatches a prediction mode (args[0]: the mode).
inline CliResult run_predict_mode(const char* label, int (*mode_main)(int, char**), std::vector<std::string> args) {
  return run_cli([&](int argc, char** argv) { return run_mode(label, mode_main, argc, argv); }, args);
}

// Mean training loss of the last n steps. "The loss dropped" is asserted on this, not on the last step alone:
// one small batch's loss swings by 0.1 between builds whose floating-point reductions differ (AVX2 vs
// AVX-512 under -march=native), which made a single-step check fail on one machine and pass on another.
inline double tail_mean_loss(const std::vector<double>& losses, std::size_t n = 25) {
  n = std::min(n, losses.size());
  if (n == 0) return 0.0 / 0.0;   // NaN: any EXPECT_LT on it fails
  double sum = 0;
  for (std::size_t i = losses.size() - n; i < losses.size(); ++i) sum += losses[i];
  return sum / static_cast<double>(n);
}

}  // namespace twin::test
