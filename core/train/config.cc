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
#include "rnn/cell_factory.h"
#include "base/json_reader.h"

namespace twin {

TrainConfig parse_train(JsonReader& r) {
  TrainConfig c;
  c.max_epochs = r.get_int("max_epochs", c.max_epochs, 1, 1'000'000);
  c.max_steps = r.get_long("max_steps", c.max_steps, 0, kMaxConfigCount);
  c.max_minutes = r.get_double("max_minutes", c.max_minutes, 0.0, 1e7);
  c.batch_size = r.get_int("batch_size", c.batch_size, 1, 100'000);
  c.eval_every = r.get_long("eval_every", c.eval_every, 0, kMaxConfigCount);
  c.patience = r.get_int("patience", c.patience, 0, 1'000'000);
  c.log_every = r.get_long("log_every", c.log_every, 1, kMaxConfigCount);
  c.save_every = r.get_long("save_every", c.save_every, 0, kMaxConfigCount);
  c.keep_snapshots = r.get_int("keep_snapshots", c.keep_snapshots, 0, 1000);
  JsonReader optim = r.child("optim");
  c.optim = parse_optim(optim);
  JsonReader schedule = r.child("schedule");
  c.schedule = parse_schedule(schedule);
  r.finish();
  return c;
}

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

nlohmann::json to_json(const TrainConfig& c) {
  return {{"max_epochs", c.max_epochs},   {"max_steps", c.max_steps},   {"max_minutes", c.max_minutes},
          {"batch_size", c.batch_size},   {"eval_every", c.eval_every}, {"patience", c.patience},
          {"log_every", c.log_every},     {"save_every", c.save_every}, {"keep_snapshots", c.keep_snapshots},
          {"optim", to_json(c.optim)},
          {"schedule", to_json(c.schedule)}};
}

nlohmann::json to_json(const RunConfig& c) {
  nlohmann::json j = {{"name", c.name}, {"seed", c.seed}, {"threads", c.threads}, {"out_dir", c.out_dir}};
  if (!c.source.empty()) j["source"] = c.source;
  return j;
}

}  // namespace twin
