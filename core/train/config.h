// Typed configuration structs shared by every task (DESIGN §4). JSON is parsed into these once, strictly
// (unknown key, wrong type or out-of-range value = error naming the file and key path); no layer reads
// strings from a map. Task-specific sections ("data", "model") are parsed by the task with JsonReader.
#pragma once
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "optim/optim_config.h"

namespace twin {

class JsonReader;

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
const ConfigTable<TrainConfig>& train_table();
// `unread`: the train keys the task does not read (e.g. cws batches by data.batch_size): present = an error.
TrainConfig parse_train(JsonReader& r, const UnreadKeys& unread = {});
// Reads the run keys (name, seed, threads, out_dir) of the top-level object. It does not call finish():
// the same object also holds the task's sections ("data", "model", "train").
RunConfig parse_run(JsonReader& r);
const ConfigTable<RunConfig>& run_table();
// The key reference rows of every task's shared keys: the run keys, then train.* without the unread ones.
std::vector<KeyDoc> experiment_key_docs(const UnreadKeys& unread_train = {});

// The typed sections as JSON with every field, defaults included (for config.resolved.json).
nlohmann::json to_json(const TrainConfig& c, const UnreadKeys& unread = {});
nlohmann::json to_json(const RunConfig& c);

}  // namespace twin
