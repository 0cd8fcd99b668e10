// The optimiser's and the learning-rate schedule's settings ("train.optim", "train.schedule"), declared once in
// their tables (base/config_table.h): the parsers, to_json, the checks of structs built in code and the key
// reference all come from them. The optimisers (optim/optimizer.h) and schedules (optim/schedule.h) own their
// configuration, and train/config.h's TrainConfig holds one of each.
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "base/config_table.h"
#include "base/names.h"

namespace twin {

class JsonReader;

// The upper bound of every step count in a config ("practically unlimited"): train/config.cc uses it too.
inline constexpr long kMaxConfigCount = 1'000'000'000'000L;

enum class OptimKind { kSgd, kAdam, kAdagrad, kAdadelta };
inline constexpr NameTable<OptimKind, 4> kOptimNames{{{OptimKind::kSgd, "sgd"},
                                                      {OptimKind::kAdam, "adam"},
                                                      {OptimKind::kAdagrad, "adagrad"},
                                                      {OptimKind::kAdadelta, "adadelta"}}};

struct OptimConfig {
  OptimKind name = OptimKind::kSgd;
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

enum class ScheduleKind { kConstant, kStepDecay, kPlateau, kHalving, kWarmupRsqrt, kGnmt };
inline constexpr NameTable<ScheduleKind, 6> kScheduleNames{{{ScheduleKind::kConstant, "constant"},
                                                            {ScheduleKind::kStepDecay, "step_decay"},
                                                            {ScheduleKind::kPlateau, "plateau"},
                                                            {ScheduleKind::kHalving, "halving"},
                                                            {ScheduleKind::kWarmupRsqrt, "warmup_rsqrt"},
                                                            {ScheduleKind::kGnmt, "gnmt"}}};

// Learning-rate schedules are pure functions of (config, base lr, progress) plus, for "plateau", the
// schedule state kept in progress (see optim/schedule.h).
struct ScheduleConfig {
  ScheduleKind type = ScheduleKind::kConstant;
  int start_epoch = 0;            // step_decay/halving: first epoch (1-based) whose lr is decayed
  double factor = 0.5;            // step_decay, plateau, gnmt: multiplier per decay
  int patience = 0;               // plateau: evaluations without improvement before decaying
  double min_lr = 0.0;            // lower bound for every decaying schedule
  long warmup_steps = 0;          // warmup_rsqrt, gnmt: linear warmup
  long decay_start_step = 0;      // gnmt: first step of exponential decay
  long decay_interval = 1;        // gnmt: steps per factor
};

const ConfigTable<OptimConfig>& optim_table();
const ConfigTable<ScheduleConfig>& schedule_table();

// Strict parsers (each consumes its object's keys and reports unknown ones) and every field as JSON.
OptimConfig parse_optim(JsonReader& r);
ScheduleConfig parse_schedule(JsonReader& r);
nlohmann::json to_json(const OptimConfig& c);
nlohmann::json to_json(const ScheduleConfig& c);

}  // namespace twin
