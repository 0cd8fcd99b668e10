// The task tests' smoke runs: build a task from an experiment JSON (a smoke config with its data and out_dir
// pointed at temporary folders) and train it quietly on one thread with the shared trainer.
#pragma once
#include <memory>
#include <string>

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

}  // namespace twin::test
