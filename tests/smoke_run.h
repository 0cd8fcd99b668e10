// The task tests' smoke runs: build a task from an experiment JSON (a smoke config with its data and out_dir
// pointed at temporary folders) and train it quietly on one thread with the shared trainer.
#pragma once
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "base/threads.h"
#include "train/cli.h"

namespace twin::test {

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
