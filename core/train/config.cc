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
      .integer("batch_size", &C::batch_size, 1, 100'000, "examples per step (tasks with data.batch_size read that instead)")
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

TrainConfig parse_train(JsonReader& r) { return train_table().parse(r); }

RunConfig parse_run(JsonReader& r) {
  RunConfig c;
  // Without a "name", the run is named after its experiment file (experiments/lm/atr.json -> "atr").
  std::string stem = std::filesystem::path(r.file()).stem().string();
  c.name = r.get_string("name", stem);
  if (c.name.empty()) r.fail("name", "must not be empty");
  for (char ch : c.name) {
    bool ok = std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' || ch == '.';
    if (!ok) r.fail("name", "must use only letters, digits, '_', '-' and '.' (it names the run folder), got \"" + c.name + "\"");
  }
  c.seed = r.get_uint64("seed", c.seed);
  c.threads = r.get_int("threads", c.threads, 1, 256);
  c.out_dir = r.get_string("out_dir", "runs/" + c.name);
  if (c.out_dir.empty()) r.fail("out_dir", "must not be empty");
  if (r.has("source")) {
    const nlohmann::json src = r.raw("source");
    if (src.is_string()) {
      c.source.push_back(src.get<std::string>());
    } else if (src.is_array() && std::all_of(src.begin(), src.end(), [](const auto& x) { return x.is_string(); })) {
      for (const auto& x : src) c.source.push_back(x.get<std::string>());
    } else {
      r.fail("source", "must be a string or an array of strings (free text: where the recipe comes from)");
    }
  }
  return c;
}

nlohmann::json to_json(const TrainConfig& c) { return train_table().to_json(c); }

nlohmann::json to_json(const RunConfig& c) {
  nlohmann::json j = {{"name", c.name}, {"seed", c.seed}, {"threads", c.threads}, {"out_dir", c.out_dir}};
  if (!c.source.empty()) j["source"] = c.source;
  return j;
}

}  // namespace twin
