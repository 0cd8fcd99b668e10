#include "optim/schedule.h"

#include <algorithm>
#include <cmath>

#include "base/check.h"

namespace twin {

namespace {

double epoch_decay(const ScheduleConfig& c, double factor, double base_lr, int epoch) {
  const int n = std::max(0, epoch - c.start_epoch + 1);
  return n == 0 ? base_lr : std::max(c.min_lr, base_lr * std::pow(factor, n));
}

}  // namespace

void check_schedule(const ScheduleConfig& c) { schedule_table().check(c, "schedule"); }

double scheduled_lr(const ScheduleConfig& c, double base_lr, const ScheduleProgress& pr) {
  check_schedule(c);
  TW_CHECK(pr.epoch >= 1 && pr.step >= 1, "scheduled_lr: epoch ", pr.epoch, " and step ", pr.step,
           " are 1-based");
  const ScheduleKind t = c.type;
  if (t == ScheduleKind::kConstant) return base_lr;
  if (t == ScheduleKind::kStepDecay) return epoch_decay(c, c.factor, base_lr, pr.epoch);
  if (t == ScheduleKind::kHalving) return epoch_decay(c, 0.5, base_lr, pr.epoch);
  if (t == ScheduleKind::kPlateau) {
    const double sc = pr.state.scale;
    TW_CHECK(sc >= 0 && sc <= 1, "plateau schedule: ScheduleState.scale = ", sc, " is not in [0, 1]");
    return sc == 1 ? base_lr : std::max(c.min_lr, base_lr * sc);
  }
  const double s = static_cast<double>(pr.step);
  if (t == ScheduleKind::kWarmupRsqrt) {
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
  TW_CHECK(c.type == ScheduleKind::kPlateau, "plateau_update called for schedule type '", name_of(kScheduleNames, c.type),
           "'");
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
