// Ranges are generous sanity bounds (lr 10 instead of 1.0 is allowed; lr -1 is not), each checked here once.
#include "optim/optim_config.h"

#include <nlohmann/json.hpp>

#include "base/json_reader.h"

namespace twin {

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
  c.warmup_steps = r.get_long("warmup_steps", c.warmup_steps, 0, kMaxConfigCount);
  c.decay_start_step = r.get_long("decay_start_step", c.decay_start_step, 0, kMaxConfigCount);
  c.decay_interval = r.get_long("decay_interval", c.decay_interval, 1, kMaxConfigCount);
  // warmup_rsqrt divides by sqrt(warmup_steps) at the end of warmup.
  if (c.type == "warmup_rsqrt" && c.warmup_steps == 0) r.fail("warmup_steps", "must be >= 1 for type \"warmup_rsqrt\"");
  r.finish();
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

}  // namespace twin
