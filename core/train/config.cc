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
#include "train/json_reader.h"

namespace twin {

namespace {
constexpr long kLongMax = 1'000'000'000'000L;  // "practically unlimited" step counts
}  // namespace

OptimConfig parse_optim(JsonReader& r) {
  OptimConfig c;
  c.name = r.get_choice("name", c.name, {"sgd", "adam", "adagrad", "adadelta"});
  c.lr = r.get_double("lr", c.lr, 0.0, 1000.0);
  c.momentum = r.get_double("momentum", c.momentum, 0.0, 1.0);
  c.beta1 = r.get_double("beta1", c.beta1, 0.0, 1.0);
  c.beta2 = r.get_double("beta2", c.beta2, 0.0, 1.0);
  c.eps = r.get_double("eps", c.eps, 0.0, 1.0);
  c.rho = r.get_double("rho", c.rho, 0.0, 1.0);
  c.initial_accumulator = r.get_double("initial_accumulator", c.initial_accumulator, 0.0, 1e6);
  c.weight_decay = r.get_double("weight_decay", c.weight_decay, 0.0, 1.0);
  c.clip_norm = r.get_double("clip_norm", c.clip_norm, 0.0, 1e9);
  // Adam divides by 1 - beta^t and Adadelta by its running averages: a value of exactly 1 never decays.
  if (c.lr <= 0.0) r.fail("lr", "must be > 0 (got 0: no parameter would ever change)");
  if (c.beta1 >= 1.0) r.fail("beta1", "must be < 1 (got 1: the first moment would never decay)");
  if (c.beta2 >= 1.0) r.fail("beta2", "must be < 1 (got 1: the second moment would never decay)");
  if (c.rho >= 1.0) r.fail("rho", "must be < 1 (got 1: the running averages would never decay)");
  if (c.momentum >= 1.0) r.fail("momentum", "must be < 1 (got 1: the velocity would grow without bound)");
  r.finish();
  return c;
}

ScheduleConfig parse_schedule(JsonReader& r) {
  ScheduleConfig c;
  c.type = r.get_choice("type", c.type, {"constant", "step_decay", "plateau", "halving", "warmup_rsqrt", "gnmt"});
  c.start_epoch = r.get_int("start_epoch", c.start_epoch, 0, 1'000'000);
  c.factor = r.get_double("factor", c.factor, 0.0, 1.0);
  c.patience = r.get_int("patience", c.patience, 0, 1'000'000);
  c.min_lr = r.get_double("min_lr", c.min_lr, 0.0, 1000.0);
  c.warmup_steps = r.get_long("warmup_steps", c.warmup_steps, 0, kLongMax);
  c.decay_start_step = r.get_long("decay_start_step", c.decay_start_step, 0, kLongMax);
  c.decay_interval = r.get_long("decay_interval", c.decay_interval, 1, kLongMax);
  // warmup_rsqrt divides by sqrt(warmup_steps) at the end of warmup.
  if (c.type == "warmup_rsqrt" && c.warmup_steps == 0) r.fail("warmup_steps", "must be >= 1 for type \"warmup_rsqrt\"");
  r.finish();
  return c;
}

TrainConfig parse_train(JsonReader& r) {
  TrainConfig c;
  c.max_epochs = r.get_int("max_epochs", c.max_epochs, 1, 1'000'000);
  c.max_steps = r.get_long("max_steps", c.max_steps, 0, kLongMax);
  c.max_minutes = r.get_double("max_minutes", c.max_minutes, 0.0, 1e7);
  c.batch_size = r.get_int("batch_size", c.batch_size, 1, 100'000);
  c.eval_every = r.get_long("eval_every", c.eval_every, 0, kLongMax);
  c.patience = r.get_int("patience", c.patience, 0, 1'000'000);
  c.log_every = r.get_long("log_every", c.log_every, 1, kLongMax);
  c.save_every = r.get_long("save_every", c.save_every, 0, kLongMax);
  c.keep_snapshots = r.get_int("keep_snapshots", c.keep_snapshots, 0, 1000);
  JsonReader optim = r.child("optim");
  c.optim = parse_optim(optim);
  JsonReader schedule = r.child("schedule");
  c.schedule = parse_schedule(schedule);
  r.finish();
  return c;
}

CellConfig parse_cell(JsonReader& r) {
  CellConfig c;
  c.type = r.get_string("type", c.type);
  if (!is_registered_cell(c.type)) {
    std::vector<std::string> names = registered_cell_names();
    std::string all, guess = closest_name(c.type, names);
    for (size_t i = 0; i < names.size(); ++i) all += (i ? ", " : "") + names[i];
    r.fail("type", "is not a registered cell: \"" + c.type + "\"; registered: " + all +
                       (guess.empty() ? "" : " (did you mean \"" + guess + "\"?)"));
  }
  // 0 = not set here: the task fills it from its own model section (e.g. "model.hidden").
  c.hidden = r.get_int("hidden", c.hidden, 0, 1 << 16);
  c.output = r.get_choice("output", c.output, {"default", "identity", "tanh"});
  c.bias = r.get_choice("bias", c.bias, {"default", "none", "input", "recurrent", "both"});
  c.input_tanh = r.get_bool("input_tanh", c.input_tanh);
  c.coupled = r.get_bool("coupled", c.coupled);
  c.layer_norm = r.get_bool("layer_norm", c.layer_norm);
  c.init = r.get_choice("init", c.init, {"uniform", "normal", "glorot", "orthogonal"});
  c.init_scale = r.get_double("init_scale", c.init_scale, 0.0, 10.0);
  c.forget_bias = r.get_double("forget_bias", c.forget_bias, -100.0, 100.0);
  c.gru_reset_after = r.get_bool("gru_reset_after", c.gru_reset_after);
  c.transitions = r.get_int("transitions", c.transitions, 0, 64);
  c.content = r.get_choice("content", c.content, {"default", "linear", "identity"});
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

nlohmann::json to_json(const OptimConfig& c) {
  return {{"name", c.name},         {"lr", c.lr},
          {"momentum", c.momentum}, {"beta1", c.beta1},
          {"beta2", c.beta2},       {"eps", c.eps},
          {"rho", c.rho},           {"initial_accumulator", c.initial_accumulator},
          {"weight_decay", c.weight_decay}, {"clip_norm", c.clip_norm}};
}

nlohmann::json to_json(const ScheduleConfig& c) {
  return {{"type", c.type},
          {"start_epoch", c.start_epoch},
          {"factor", c.factor},
          {"patience", c.patience},
          {"min_lr", c.min_lr},
          {"warmup_steps", c.warmup_steps},
          {"decay_start_step", c.decay_start_step},
          {"decay_interval", c.decay_interval}};
}

nlohmann::json to_json(const TrainConfig& c) {
  return {{"max_epochs", c.max_epochs},   {"max_steps", c.max_steps},   {"max_minutes", c.max_minutes},
          {"batch_size", c.batch_size},   {"eval_every", c.eval_every}, {"patience", c.patience},
          {"log_every", c.log_every},     {"save_every", c.save_every}, {"keep_snapshots", c.keep_snapshots},
          {"optim", to_json(c.optim)},
          {"schedule", to_json(c.schedule)}};
}

nlohmann::json to_json(const CellConfig& c) {
  return {{"type", c.type},
          {"hidden", c.hidden},
          {"output", c.output},
          {"bias", c.bias},
          {"input_tanh", c.input_tanh},
          {"coupled", c.coupled},
          {"layer_norm", c.layer_norm},
          {"init", c.init},
          {"init_scale", c.init_scale},
          {"forget_bias", c.forget_bias},
          {"gru_reset_after", c.gru_reset_after},
          {"transitions", c.transitions},
          {"content", c.content}};
}

nlohmann::json to_json(const RunConfig& c) {
  nlohmann::json j = {{"name", c.name}, {"seed", c.seed}, {"threads", c.threads}, {"out_dir", c.out_dir}};
  if (!c.source.empty()) j["source"] = c.source;
  return j;
}

}  // namespace twin
