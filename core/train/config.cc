// Strict parsers and to_json for the typed config structs (DESIGN §4 "Flow"). Ranges are generous sanity
// bounds: they catch a typo or a wrong unit (lr 10 instead of 1.0 is allowed; lr -1 or batch 0 is not), and
// the parser of each section is the single place that knows its keys. to_json writes every field, defaults
// included, so config.resolved.json alone reproduces a run.
#include "train/config.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "base/check.h"
#include "base/json_reader.h"

namespace twin {

namespace {
ConfigTable<TrainConfig> make_train_table() {
  using C = TrainConfig;
  ConfigTable<C> t;
  t.integer("max_epochs", &C::max_epochs, 1, 1'000'000, "epochs to train (the budget's first limit)")
      .count("max_steps", &C::max_steps, 0, kMaxConfigCount, "training steps; 0 = no limit")
      .number("max_minutes", &C::max_minutes, 0.0, 1e7, "training minutes, then a clean stop and evaluation; 0 = no limit")
      .integer("batch_size", &C::batch_size, 1, 100'000, "lm: parallel streams per step (the other tasks batch by their data keys and refuse this one)")
      .count("eval_every", &C::eval_every, 0, kMaxConfigCount, "steps between dev evaluations; 0 = once per epoch")
      .integer("patience", &C::patience, 0, 1'000'000, "early stopping: evaluations without improvement; 0 = off")
      .count("log_every", &C::log_every, 1, kMaxConfigCount, "steps between progress lines")
      .count("save_every", &C::save_every, 0, kMaxConfigCount, "steps between last checkpoints; 0 = at every evaluation")
      .integer("keep_snapshots", &C::keep_snapshots, 0, 1000, "parameters kept after each evaluation (last K)")
      .section("optim", &C::optim, &optim_table(), "the optimiser (train.optim.*)")
      .section("schedule", &C::schedule, &schedule_table(), "the learning-rate schedule (train.schedule.*)");
  return t;
}
}  // namespace

const ConfigTable<TrainConfig>& train_table() {
  static const ConfigTable<TrainConfig> t = make_train_table();
  return t;
}

TrainConfig parse_train(JsonReader& r, const UnreadKeys& unread) { return train_table().parse(r, TrainConfig{}, unread); }

namespace {
using Problem = std::pair<std::string, std::string>;

ConfigTable<RunConfig> make_run_table() {
  using C = RunConfig;
  ConfigTable<C> t;
  t.text("name", &C::name, "the run's name (default: the experiment file's name without .json)")
      .unsigned64("seed", &C::seed, "initialisation, batch order and dropout (--seed / --seeds set it)")
      .integer("threads", &C::threads, 1, 256, "OpenMP threads (--threads sets it)")
      .text("out_dir", &C::out_dir, "the run folder (default: runs/<name>; --seed N appends _s<N>)")
      .custom("source", "string or list of strings", "",
              [](JsonReader& r, C& c) {
                if (!r.has("source")) return;
                const nlohmann::json src = r.raw("source");
                c.source.clear();
                if (src.is_string()) {
                  c.source.push_back(src.get<std::string>());
                } else if (src.is_array() &&
                           std::all_of(src.begin(), src.end(), [](const auto& x) { return x.is_string(); })) {
                  for (const auto& x : src) c.source.push_back(x.get<std::string>());
                } else {
                  r.fail("source", "must be a string or an array of strings (free text: where the recipe comes from)");
                }
              },
              [](const C& c) { return c.source.empty() ? nlohmann::json() : nlohmann::json(c.source); },
              "free text, never read by the code: where the recipe comes from and how it maps onto these keys");
  t.rule([](const C& c) {
    if (c.name.empty()) return Problem{"name", "must not be empty"};
    for (char ch : c.name) {
      const bool ok = std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' || ch == '.';
      if (!ok)
        return Problem{"name", "must use only letters, digits, '_', '-' and '.' (it names the run folder), got \"" +
                                   c.name + "\""};
    }
    return Problem{"", ""};
  });
  return t;
}
}  // namespace

const ConfigTable<RunConfig>& run_table() {
  static const ConfigTable<RunConfig> t = make_run_table();
  return t;
}

RunConfig parse_run(JsonReader& r) {
  RunConfig c;
  // Without a "name", the run is named after its experiment file (experiments/lm/atr.json -> "atr").
  c.name = std::filesystem::path(r.file()).stem().string();
  const bool has_out_dir = r.has("out_dir");
  run_table().read(r, c);
  if (!has_out_dir) c.out_dir = "runs/" + c.name;
  if (c.out_dir.empty()) r.fail("out_dir", "must not be empty");
  return c;
}

nlohmann::json to_json(const TrainConfig& c, const UnreadKeys& unread) { return train_table().to_json(c, unread); }

nlohmann::json to_json(const RunConfig& c) {
  nlohmann::json j = run_table().to_json(c);
  if (c.source.empty()) j.erase("source");
  return j;
}

std::vector<KeyDoc> experiment_key_docs(const UnreadKeys& unread_train) {
  std::vector<KeyDoc> out = run_table().docs();
  out.push_back({"train", "section", nlohmann::json::object(), "", "the trainer (train.*)", false});
  train_table().append_docs(TrainConfig{}, "train.", out, unread_train);
  return out;
}

}  // namespace twin
