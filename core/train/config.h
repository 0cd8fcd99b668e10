// Typed configuration structs shared by every task (DESIGN §4). JSON is parsed into these once, strictly
// (unknown key, wrong type or out-of-range value = error naming the file and key path); no layer reads
// strings from a map. Task-specific sections ("data", "model") are parsed by the task with JsonReader.
#pragma once
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "rnn/cell.h"

namespace twin {

class JsonReader;

struct OptimConfig {
  std::string name = "sgd";     // "sgd" | "adam" | "adagrad" | "adadelta"
  double lr = 1.0;
  double momentum = 0.0;        // sgd
  double beta1 = 0.9;           // adam
  double beta2 = 0.999;         // adam
  double eps = 1e-8;            // adam, adagrad, adadelta
  double rho = 0.95;            // adadelta
  double initial_accumulator = 0.0;   // adagrad
  double weight_decay = 0.0;    // L2 added to the gradient
  double clip_norm = 0.0;       // global-norm clipping; 0 = off
};

// Learning-rate schedules are pure functions of (config, base lr, progress) plus, for "plateau", the
// schedule state kept in progress (see optim/schedule.h).
struct ScheduleConfig {
  std::string type = "constant";  // constant | step_decay | plateau | halving | warmup_rsqrt | gnmt
  int start_epoch = 0;            // step_decay/halving: first epoch (1-based) whose lr is decayed
  double factor = 0.5;            // step_decay, plateau, gnmt: multiplier per decay
  int patience = 0;               // plateau: evaluations without improvement before decaying
  double min_lr = 0.0;            // lower bound for every decaying schedule
  long warmup_steps = 0;          // warmup_rsqrt, gnmt: linear warmup
  long decay_start_step = 0;      // gnmt: first step of exponential decay
  long decay_interval = 1;        // gnmt: steps per factor
};

struct TrainConfig {
  int max_epochs = 1;
  long max_steps = 0;             // 0 = no limit
  double max_minutes = 0.0;       // 0 = no limit; stops cleanly after the current step, still evaluates
  int batch_size = 20;
  long eval_every = 0;            // steps between dev evaluations; 0 = once per epoch
  int patience = 0;               // early stopping: evaluations without improvement; 0 = off
  long log_every = 100;           // steps between progress lines
  long save_every = 0;            // steps between "last" checkpoints; 0 = at every evaluation
  int keep_snapshots = 0;         // > 0: parameters after each dev evaluation in snapshots/, the last K kept
                                  // (for checkpoint averaging, e.g. `nmt average`)
  OptimConfig optim;
  ScheduleConfig schedule;
};

// Top-level keys of every experiment file.
struct RunConfig {
  std::string name;
  std::uint64_t seed = 1;
  int threads = 2;
  std::string out_dir;            // default: runs/<name>
  // Free text, never read by the code: where a recipe comes from and how it maps onto these keys (a string
  // or an array of strings, one line each). Recorded in the resolved config.
  std::vector<std::string> source;
};

// Strict parsers (implemented in train/config.cc). Each consumes its object's keys and reports unknown ones
// (it calls r.finish()); a task that keeps its own keys in the same object ("bptt" in "train") reads them
// with `r` before the call, so they count as known.
OptimConfig parse_optim(JsonReader& r);
ScheduleConfig parse_schedule(JsonReader& r);
TrainConfig parse_train(JsonReader& r);
CellConfig parse_cell(JsonReader& r);
// Reads the run keys (name, seed, threads, out_dir) of the top-level object. It does not call finish():
// the same object also holds the task's sections ("data", "model", "train").
RunConfig parse_run(JsonReader& r);

// The typed sections as JSON with every field, defaults included (for config.resolved.json).
nlohmann::json to_json(const OptimConfig& c);
nlohmann::json to_json(const ScheduleConfig& c);
nlohmann::json to_json(const TrainConfig& c);
nlohmann::json to_json(const CellConfig& c);
nlohmann::json to_json(const RunConfig& c);

}  // namespace twin
