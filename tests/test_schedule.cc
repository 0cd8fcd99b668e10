// Learning-rate schedules: every type at hand-picked epochs and steps (Zaremba's exact small and medium
// sequences, GNMT, warmup-rsqrt), plateau decay with patience and min_lr, and config validation.
#include <gtest/gtest.h>

#include <cmath>

#include "base/check.h"
#include "base/json_reader.h"
#include "optim/optim_config.h"
#include "optim/schedule.h"
#include "test_util.h"

namespace twin {
namespace {

using test::contains;
using test::error_of;

double lr_at(const ScheduleConfig& c, double base, int epoch, long step = 1) {
  ScheduleProgress p;
  p.epoch = epoch;
  p.step = step;
  return scheduled_lr(c, base, p);
}

TEST(Schedule, ConstantAndZarembaSmall) {
  ScheduleConfig c;
  EXPECT_EQ(lr_at(c, 0.3, 17, 9999), 0.3);
  c.type = ScheduleKind::kStepDecay;
  c.start_epoch = 5;
  c.factor = 0.5;
  const double want[13] = {1, 1, 1, 1, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625,
                           0.001953125};
  for (int e = 1; e <= 13; ++e) EXPECT_EQ(lr_at(c, 1.0, e), want[e - 1]) << "epoch " << e;
  c.type = ScheduleKind::kHalving;
  for (int e = 1; e <= 13; ++e) EXPECT_EQ(lr_at(c, 1.0, e), want[e - 1]) << "halving epoch " << e;
  c.min_lr = 0.01;
  EXPECT_EQ(lr_at(c, 1.0, 9), 0.03125);
  EXPECT_EQ(lr_at(c, 1.0, 13), 0.01);
}

TEST(Schedule, ZarembaMedium) {
  ScheduleConfig c;
  c.type = ScheduleKind::kStepDecay;
  c.start_epoch = 7;
  c.factor = 1 / 1.2;
  double lr = 1.0;  // "after 6 epochs, divide by 1.2 after each epoch"
  for (int e = 1; e <= 39; ++e) {
    if (e > 6) lr /= 1.2;
    EXPECT_NEAR(lr_at(c, 1.0, e), lr, 1e-12 * lr) << "epoch " << e;
  }
  EXPECT_NEAR(lr_at(c, 1.0, 39), std::pow(1.2, -33), 1e-15);
}

TEST(Schedule, WarmupRsqrt) {
  ScheduleConfig c;
  c.type = ScheduleKind::kWarmupRsqrt;
  c.warmup_steps = 4000;
  EXPECT_DOUBLE_EQ(lr_at(c, 2.0, 1, 1), 2.0 / 4000);
  EXPECT_DOUBLE_EQ(lr_at(c, 2.0, 1, 2000), 1.0);
  EXPECT_DOUBLE_EQ(lr_at(c, 2.0, 1, 4000), 2.0);
  EXPECT_DOUBLE_EQ(lr_at(c, 2.0, 1, 16000), 1.0);
  EXPECT_DOUBLE_EQ(lr_at(c, 2.0, 3, 64000), 0.5);
  c.min_lr = 0.8;
  EXPECT_DOUBLE_EQ(lr_at(c, 2.0, 3, 64000), 0.8);
  EXPECT_DOUBLE_EQ(lr_at(c, 2.0, 1, 1), 2.0 / 4000);  // warmup is not floored
}

TEST(Schedule, Gnmt) {
  ScheduleConfig c;
  c.type = ScheduleKind::kGnmt;
  c.warmup_steps = 100;
  c.decay_start_step = 1000;
  c.decay_interval = 200;
  c.factor = 0.5;
  const std::pair<long, double> want[] = {{1, 1e-5},      {50, 5e-4},      {100, 1e-3},     {101, 1e-3},
                                          {1000, 1e-3},   {1199, 1e-3},    {1200, 5e-4},    {1399, 5e-4},
                                          {1400, 2.5e-4}, {2000, 3.125e-5}};
  for (const auto& [step, lr] : want) EXPECT_NEAR(lr_at(c, 1e-3, 1, step), lr, 1e-15) << "step " << step;
  c.min_lr = 1e-4;
  EXPECT_NEAR(lr_at(c, 1e-3, 1, 2000), 1e-4, 1e-15);
  c.warmup_steps = 0;
  EXPECT_EQ(lr_at(c, 1e-3, 1, 1), 1e-3);
}

TEST(Schedule, PlateauDecaysAfterPatienceAndRespectsMinLr) {
  ScheduleConfig c;
  c.type = ScheduleKind::kPlateau;
  c.factor = 0.5;
  c.patience = 1;
  c.min_lr = 0.2;
  ScheduleProgress p;  // a default state is the start of a run
  const std::pair<double, double> evals[] = {  // (dev perplexity, lr afterwards)
      {100, 1.0}, {90, 1.0}, {95, 1.0}, {96, 0.5}, {89, 0.5}, {89, 0.5},
      {89, 0.25}, {89, 0.25}, {89, 0.2}, {89, 0.2}, {89, 0.2}};
  for (const auto& [ppl, lr] : evals) {
    plateau_update(p.state, ppl, /*higher_is_better=*/false, c);
    EXPECT_EQ(scheduled_lr(c, 1.0, p), lr) << "after ppl " << ppl;
  }
  EXPECT_EQ(p.state.best, 89);

  c.patience = 0;  // accuracy, decay at the first non-improvement; NaN counts as none
  p.state = ScheduleState{};
  c.min_lr = 0;
  plateau_update(p.state, 0.5, true, c);
  plateau_update(p.state, 0.6, true, c);
  EXPECT_EQ(scheduled_lr(c, 0.1, p), 0.1);
  plateau_update(p.state, 0.55, true, c);
  EXPECT_EQ(scheduled_lr(c, 0.1, p), 0.05);
  plateau_update(p.state, std::nan(""), true, c);
  EXPECT_EQ(scheduled_lr(c, 0.1, p), 0.025);
  EXPECT_EQ(p.state.decays, 2);
  EXPECT_EQ(p.state.best, 0.6);
}

TEST(Schedule, CheckScheduleNamesTheField) {
  auto err = [](ScheduleConfig c) { return error_of([&] { check_schedule(c); }); };
  ScheduleConfig c;
  // An unknown type cannot be built any more (ScheduleKind); the parser names the allowed ones.
  nlohmann::json j = {{"type", "cosine"}};
  JsonReader r(j, "exp.json", "train.schedule");
  const std::string e = error_of([&] { parse_schedule(r); });
  EXPECT_TRUE(contains(e, "\"cosine\"") && contains(e, "warmup_rsqrt")) << e;
  c.type = ScheduleKind::kStepDecay;
  c.start_epoch = 3;
  c.factor = 0;
  EXPECT_TRUE(contains(err(c), "schedule.factor")) << err(c);
  c.factor = 0.5;
  EXPECT_EQ(err(c), test::kNoErrorThrown);
  c.start_epoch = 0;
  EXPECT_TRUE(contains(err(c), "schedule.start_epoch")) << err(c);
  c.type = ScheduleKind::kHalving;
  c.start_epoch = 2;
  c.factor = 0.7;
  EXPECT_TRUE(contains(err(c), "schedule.factor")) << err(c);
  c = ScheduleConfig{};
  c.type = ScheduleKind::kWarmupRsqrt;
  EXPECT_TRUE(contains(err(c), "schedule.warmup_steps")) << err(c);
  c = ScheduleConfig{};
  c.type = ScheduleKind::kGnmt;
  c.decay_start_step = 10;
  c.decay_interval = 0;
  EXPECT_TRUE(contains(err(c), "schedule.decay_interval")) << err(c);
  c.decay_interval = 5;
  c.warmup_steps = 20;
  EXPECT_TRUE(contains(err(c), "schedule.decay_start_step")) << err(c);
  c = ScheduleConfig{};
  c.min_lr = -1;
  EXPECT_TRUE(contains(err(c), "schedule.min_lr")) << err(c);
  c = ScheduleConfig{};
  c.type = ScheduleKind::kPlateau;
  ScheduleProgress p;
  p.state.scale = 2;  // a corrupt progress.json
  EXPECT_TRUE(contains(error_of([&] { scheduled_lr(c, 1.0, p); }), "ScheduleState.scale")) << "corrupt state";
  EXPECT_TRUE(contains(error_of([&] { plateau_update(p.state, 1.0, true, ScheduleConfig{}); }), "'constant'"));
  EXPECT_TRUE(contains(error_of([&] { lr_at(ScheduleConfig{}, 1.0, 0); }), "1-based"));
}

}  // namespace
}  // namespace twin
