// Where a run is: everything besides parameters and optimiser state that exact resume needs.
#pragma once
#include <nlohmann/json.hpp>

#include "base/rng.h"
#include "optim/schedule.h"
#include "train/task.h"

namespace twin {

struct Progress {
  int epoch = 1;            // 1-based epoch in progress
  size_t batch = 0;         // next batch index within the epoch
  long step = 0;            // optimiser steps done
  double units = 0;         // training units (tokens, sentences) seen
  double elapsed_s = 0;     // wall time of previous sessions of this run
  double lr = 0;            // last learning rate used
  bool has_best = false;
  Metrics best;
  int stalled = 0;          // evaluations since the best one
  ScheduleState sched;      // plateau schedule state
  Rng step_rng;             // dropout and other per-step randomness
  // Crash safety: the lines of metrics.jsonl this position accounts for (a resume drops the lines after them;
  // -1 in checkpoints written before this field existed: drop by step), and the open log_every window, so
  // the first train line after a resume averages the same steps as an uninterrupted run's.
  long metrics_rows = -1;
  double window_loss = 0, window_units = 0;
  long window_steps = 0;

  ScheduleProgress sched_progress() const;
  nlohmann::json to_json() const;
  static Progress from_json(const nlohmann::json& j);   // throws Error on a missing or mistyped field
};

}  // namespace twin
