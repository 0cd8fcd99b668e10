// Ranges are generous sanity bounds (lr 10 instead of 1.0 is allowed; lr -1 is not), each declared here once.
#include "optim/optim_config.h"

#include <nlohmann/json.hpp>

#include "base/json_reader.h"

namespace twin {

namespace {
using Problem = std::pair<std::string, std::string>;
const Problem kFine{"", ""};

ConfigTable<OptimConfig> make_optim_table() {
  using C = OptimConfig;
  ConfigTable<C> t;
  t.choice("name", &C::name, kOptimNames, "the optimiser")
      .number("lr", &C::lr, 0.0, 1000.0, "learning rate (> 0); the schedule scales it")
      .number("momentum", &C::momentum, 0.0, 1.0, "sgd: momentum (< 1)")
      .number("beta1", &C::beta1, 0.0, 1.0, "adam: first-moment decay (< 1)")
      .number("beta2", &C::beta2, 0.0, 1.0, "adam: second-moment decay (< 1)")
      .number("eps", &C::eps, 0.0, 1.0, "adam, adagrad, adadelta: added to the denominator (> 0)")
      .number("rho", &C::rho, 0.0, 1.0, "adadelta: decay of the running averages (< 1)")
      .number("initial_accumulator", &C::initial_accumulator, 0.0, 1e6, "adagrad: initial sum of squares")
      .number("weight_decay", &C::weight_decay, 0.0, 1.0, "L2 coefficient added to the gradient")
      .number("clip_norm", &C::clip_norm, 0.0, 1e9, "global gradient-norm clipping; 0 = off");
  // Adam divides by 1 - beta^t and Adadelta by its running averages: a value of exactly 1 never decays.
  t.rule([](const C& c) {
    if (c.lr <= 0.0) return Problem{"lr", "must be > 0 (got 0: no parameter would ever change)"};
    if (c.beta1 >= 1.0) return Problem{"beta1", "must be < 1 (got 1: the first moment would never decay)"};
    if (c.beta2 >= 1.0) return Problem{"beta2", "must be < 1 (got 1: the second moment would never decay)"};
    if (c.rho >= 1.0) return Problem{"rho", "must be < 1 (got 1: the running averages would never decay)"};
    if (c.momentum >= 1.0) return Problem{"momentum", "must be < 1 (got 1: the velocity would grow without bound)"};
    if (c.eps <= 0.0 && c.name != OptimKind::kSgd)
      return Problem{"eps", "must be > 0 (got 0: it keeps the update's denominator away from zero)"};
    return kFine;
  });
  return t;
}

std::string sched_name(ScheduleKind k) { return std::string(name_of(kScheduleNames, k)); }

ConfigTable<ScheduleConfig> make_schedule_table() {
  using C = ScheduleConfig;
  using K = ScheduleKind;
  ConfigTable<C> t;
  t.choice("type", &C::type, kScheduleNames, "how the learning rate changes over training")
      .integer("start_epoch", &C::start_epoch, 0, 1'000'000, "step_decay, halving: first decayed epoch (1-based)")
      .number("factor", &C::factor, 0.0, 1.0, "step_decay, plateau, gnmt: multiplier per decay (> 0)")
      .integer("patience", &C::patience, 0, 1'000'000, "plateau: evaluations without improvement before a decay")
      .number("min_lr", &C::min_lr, 0.0, 1000.0, "lower bound of every decaying schedule")
      .count("warmup_steps", &C::warmup_steps, 0, kMaxConfigCount, "warmup_rsqrt, gnmt: linear warmup steps")
      .count("decay_start_step", &C::decay_start_step, 0, kMaxConfigCount, "gnmt: first step of the decay")
      .count("decay_interval", &C::decay_interval, 1, kMaxConfigCount, "gnmt: steps per factor");
  t.rule([](const C& c) {
    const K k = c.type;
    const bool uses_factor = k == K::kStepDecay || k == K::kHalving || k == K::kPlateau || k == K::kGnmt;
    if ((k == K::kStepDecay || k == K::kHalving) && c.start_epoch < 1)
      return Problem{"start_epoch", "= " + std::to_string(c.start_epoch) + " must be >= 1 for '" + sched_name(k) +
                                        "' (the first decayed epoch, 1-based)"};
    if (uses_factor && c.factor <= 0)
      return Problem{"factor", "= 0 is out of range (0, 1] for schedule type '" + sched_name(k) + "'"};
    if (k == K::kHalving && c.factor != 0.5)
      return Problem{"factor", "with type 'halving', which always halves, must be 0.5; use type 'step_decay' for "
                               "another factor"};
    if (k == K::kWarmupRsqrt && c.warmup_steps < 1)   // it divides by sqrt(warmup_steps) at the end of warmup
      return Problem{"warmup_steps", "must be >= 1 for type \"warmup_rsqrt\""};
    if (k == K::kGnmt && (c.decay_start_step < 1 || c.decay_start_step < c.warmup_steps))
      return Problem{"decay_start_step", "= " + std::to_string(c.decay_start_step) + " must be >= 1 and >= "
                                         "schedule.warmup_steps (" + std::to_string(c.warmup_steps) +
                                         "): decay starts after the warmup"};
    return kFine;
  });
  return t;
}
}  // namespace

const ConfigTable<OptimConfig>& optim_table() {
  static const ConfigTable<OptimConfig> t = make_optim_table();
  return t;
}

const ConfigTable<ScheduleConfig>& schedule_table() {
  static const ConfigTable<ScheduleConfig> t = make_schedule_table();
  return t;
}

OptimConfig parse_optim(JsonReader& r) { return optim_table().parse(r); }
ScheduleConfig parse_schedule(JsonReader& r) { return schedule_table().parse(r); }
nlohmann::json to_json(const OptimConfig& c) { return optim_table().to_json(c); }
nlohmann::json to_json(const ScheduleConfig& c) { return schedule_table().to_json(c); }

}  // namespace twin
