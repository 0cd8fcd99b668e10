#include "optim/schedule.h"

#include <algorithm>
#include <cmath>

#include "base/check.h"

namespace twin {

namespace {

constexpr const char* kScheduleTypes = "constant, step_decay, halving, plateau, warmup_rsqrt, gnmt";

void check_factor(const ScheduleConfig& c) {
  TW_CHECK(std::isfinite(c.factor) && c.factor > 0 && c.factor <= 1, "schedule.factor = ", c.factor,
           " is out of range (0, 1] for schedule type '", c.type, "'");
}

double epoch_decay(const ScheduleConfig& c, double factor, double base_lr, int epoch) {
  const int n = std::max(0, epoch - c.start_epoch + 1);
  return n == 0 ? base_lr : std::max(c.min_lr, base_lr * std::pow(factor, n));
}

}  // namespace

void check_schedule(const ScheduleConfig& c) {
  const std::string& t = c.type;
  TW_CHECK(t == "constant" || t == "step_decay" || t == "halving" || t == "plateau" || t == "warmup_rsqrt" ||
               t == "gnmt",
           "schedule.type = '", t, "' is not a schedule; allowed: ", kScheduleTypes);
  TW_CHECK(std::isfinite(c.min_lr) && c.min_lr >= 0, "schedule.min_lr = ", c.min_lr, " must be >= 0");
  if (t == "step_decay" || t == "halving") {
    TW_CHECK(c.start_epoch >= 1, "schedule.start_epoch = ", c.start_epoch, " must be >= 1 for '", t,
             "' (the first decayed epoch, 1-based)");
    check_factor(c);
    TW_CHECK(t != "halving" || c.factor == 0.5, "schedule.factor = ", c.factor,
             " with type 'halving', which always halves; use type 'step_decay' for another factor");
  } else if (t == "plateau") {
    check_factor(c);
    TW_CHECK(c.patience >= 0, "schedule.patience = ", c.patience, " must be >= 0");
  } else if (t == "warmup_rsqrt") {
    TW_CHECK(c.warmup_steps >= 1, "schedule.warmup_steps = ", c.warmup_steps, " must be >= 1 for 'warmup_rsqrt'");
  } else if (t == "gnmt") {
    check_factor(c);
    TW_CHECK(c.warmup_steps >= 0, "schedule.warmup_steps = ", c.warmup_steps, " must be >= 0");
    TW_CHECK(c.decay_interval >= 1, "schedule.decay_interval = ", c.decay_interval, " must be >= 1");
    TW_CHECK(c.decay_start_step >= 1 && c.decay_start_step >= c.warmup_steps, "schedule.decay_start_step = ",
             c.decay_start_step, " must be >= 1 and >= schedule.warmup_steps (", c.warmup_steps,
             "): decay starts after the warmup");
  }
}

double scheduled_lr(const ScheduleConfig& c, double base_lr, const ScheduleProgress& pr) {
  check_schedule(c);
  TW_CHECK(pr.epoch >= 1 && pr.step >= 1, "scheduled_lr: epoch ", pr.epoch, " and step ", pr.step,
           " are 1-based");
  const std::string& t = c.type;
  if (t == "constant") return base_lr;
  if (t == "step_decay") return epoch_decay(c, c.factor, base_lr, pr.epoch);
  if (t == "halving") return epoch_decay(c, 0.5, base_lr, pr.epoch);
  if (t == "plateau") {
    const double sc = pr.state.scale;
    TW_CHECK(sc >= 0 && sc <= 1, "plateau schedule: ScheduleState.scale = ", sc, " is not in [0, 1]");
    return sc == 1 ? base_lr : std::max(c.min_lr, base_lr * sc);
  }
  const double s = static_cast<double>(pr.step);
  if (t == "warmup_rsqrt") {
    const double w = static_cast<double>(c.warmup_steps);
    if (s <= w) return base_lr * (s / w);
    return std::max(c.min_lr, base_lr * std::sqrt(w / s));
  }
  // gnmt
  if (pr.step <= c.warmup_steps) return base_lr * s / static_cast<double>(c.warmup_steps);
  if (pr.step < c.decay_start_step) return base_lr;
  const long n = (pr.step - c.decay_start_step) / c.decay_interval;
  return n == 0 ? base_lr : std::max(c.min_lr, base_lr * std::pow(c.factor, static_cast<double>(n)));
}

void plateau_update(ScheduleState& st, double metric, bool higher_is_better, const ScheduleConfig& c) {
  check_schedule(c);
  TW_CHECK(c.type == "plateau", "plateau_update called for schedule type '", c.type, "'");
  const bool improved =
      !std::isnan(metric) && (!st.has_best || (higher_is_better ? metric > st.best : metric < st.best));
  if (improved) {
    st.best = metric;
    st.has_best = true;
    st.stalled = 0;
    return;
  }
  if (++st.stalled > c.patience) {
    st.scale *= c.factor;  // may go below min_lr / base lr: the floor is applied by scheduled_lr
    st.stalled = 0;
    ++st.decays;
  }
}

}  // namespace twin
