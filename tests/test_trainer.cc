// The shared trainer on a toy task: exact resume (N steps + save + resume + M steps == N+M straight, at any
// stop position), determinism, SIGINT save-and-exit, non-finite loss stop, early stopping, schedules.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>

#include "base/profile.h"
#include "graph/init.h"
#include "ops/ops.h"
#include "test_util.h"
#include "train/checkpoint.h"
#include "train/trainer.h"

namespace twin {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

// Softmax regression with dropout on random data. Batches are shuffled per epoch (order_rng), dropout draws
// from the step rng, and a running counter is task state (saved/restored like the LM's carried hidden state).
class ToyTask : public TaskDefaults {
 public:
  explicit ToyTask(std::uint64_t seed = 3) : store_(seed) {
    Rng data(11);
    x_ = Mat(40, 5);
    data.fill_normal(x_, 0, 1);
    for (Index n = 0; n < x_.rows(); ++n) y_.push_back(x_(n, 0) + x_(n, 1) > 0 ? 1 : (x_(n, 2) > 0.5 ? 2 : 0));
    w_ = &store_.add("toy/W", 5, 3, init::uniform(0.1f));
    b_ = &store_.add("toy/b", 1, 3, init::constant(0));
  }
  ParamStore& params() { return store_; }
  void set_shard(const dist::Shard&) {}   // one process only: the MPI tests run the real tasks
  size_t begin_epoch(int, Rng& order_rng) {
    order_.resize(4);
    for (int i = 0; i < 4; ++i) order_[static_cast<size_t>(i)] = i;
    order_rng.shuffle(order_.begin(), order_.end());
    counter_ = Mat::Zero(1, 1);
    return order_.size();
  }
  LossOut loss(Graph& g, size_t batch, Rng& rng) {
    if (probe_) probe_(calls_);
    if (raise_at_ >= 0 && calls_ == raise_at_) std::raise(SIGINT);
    ++calls_;
    const Index start = order_[batch] * 10;
    Ids y(y_.begin() + start, y_.begin() + start + 10);
    Var x = dropout(g.constant(x_.middleRows(start, 10)), 0.2f, rng);
    Var l = cross_entropy(affine(x, g.param(*w_), g.param(*b_)), y, Mat());
    if (nan_at_ >= 0 && calls_ - 1 == nan_at_) l = scale(l, std::numeric_limits<Real>::quiet_NaN());
    counter_(0, 0) += 1;
    return {scale(l, 0.1f), l.val()(0, 0), 10};
  }
  Metrics evaluate(Split) {
    Graph g(Mode::kInfer);
    Var l = cross_entropy(affine(g.constant(x_), g.param(*w_), g.param(*b_)), y_, Mat());
    Metrics m;
    m.primary_name = "loss";
    m.primary = fixed_metric_ ? 1.0 : l.val()(0, 0) / 40.0;
    m.values = {{"loss", m.primary}};
    return m;
  }
  NamedMats save_state() const { return {{"counter", counter_}}; }
  void load_state(const NamedMats& s) {
    ASSERT_EQ(s.size(), 1u);
    counter_ = s[0].second;
  }

  int raise_at_ = -1, nan_at_ = -1;
  std::function<void(int calls)> probe_;   // called before each step's loss, with the steps trained so far
  bool fixed_metric_ = false;
  int calls_ = 0;
  Mat counter_ = Mat::Zero(1, 1);

 private:
  ParamStore store_;
  Param *w_, *b_;
  Mat x_;
  Ids y_;
  std::vector<int> order_;
};

TrainOptions options(const std::string& dir, int epochs) {
  TrainOptions o;
  o.run.seed = 5;
  o.run_dir = dir;
  o.quiet = true;
  o.train.max_epochs = epochs;
  o.train.optim.name = OptimKind::kAdam;
  o.train.optim.lr = 0.05;
  o.train.optim.clip_norm = 1.0;
  o.train.schedule.type = ScheduleKind::kStepDecay;
  o.train.schedule.start_epoch = 2;
  o.train.schedule.factor = 0.5;
  return o;
}

void expect_same_params(ParamStore& a, ParamStore& b) {
  ASSERT_EQ(a.all().size(), b.all().size());
  for (size_t i = 0; i < a.all().size(); ++i)
    EXPECT_TRUE(a.all()[i]->value == b.all()[i]->value) << a.all()[i]->name << " differs";
}

TEST(Trainer, SameSeedGivesBitIdenticalRuns) {
  TempDir d1, d2;
  ToyTask a, b;
  TrainOutcome oa = train(a, options(d1.path.string(), 3));
  TrainOutcome ob = train(b, options(d2.path.string(), 3));
  EXPECT_EQ(oa.losses, ob.losses);
  EXPECT_EQ(oa.steps, 12);
  EXPECT_EQ(oa.stop_reason, StopReason::kMaxEpochs);
  expect_same_params(a.params(), b.params());
  EXPECT_LT(oa.losses.back(), oa.losses.front());
}

// Stops after `stop_steps`, resumes in a fresh task, and compares with an uninterrupted run: mid-epoch,
// on an epoch's last batch (the end-of-epoch evaluation must still happen) and at an epoch boundary.
class TrainerResume : public ::testing::TestWithParam<int> {};

TEST_P(TrainerResume, StopAndResumeEqualsStraightRun) {
  const int stop_steps = GetParam();
  TempDir straight_dir, split_dir;
  ToyTask straight;
  TrainOutcome full = train(straight, options(straight_dir.path.string(), 3));

  ToyTask first;
  TrainOptions o = options(split_dir.path.string(), 3);
  o.train.max_steps = stop_steps;
  TrainOutcome part1 = train(first, o);
  EXPECT_EQ(part1.stop_reason, StopReason::kMaxSteps);
  ASSERT_TRUE(fs::exists(split_dir.path / "checkpoint.last.bin"));

  ToyTask second(/*seed=*/999);   // different init: everything must come from the checkpoint
  o.train.max_steps = 0;
  o.resume = true;
  TrainOutcome part2 = train(second, o);
  std::vector<double> joined = part1.losses;
  joined.insert(joined.end(), part2.losses.begin(), part2.losses.end());
  EXPECT_EQ(joined, full.losses);
  expect_same_params(straight.params(), second.params());
  EXPECT_EQ(second.counter_(0, 0), straight.counter_(0, 0));
  EXPECT_EQ(part2.best.primary, full.best.primary);
}
INSTANTIATE_TEST_SUITE_P(StopPositions, TrainerResume, ::testing::Values(2, 4, 5, 8));

// A crash (kill -9) after the last checkpoint leaves metrics lines the resumed run writes again: resume drops
// them, so metrics.jsonl equals an uninterrupted run's, line for line apart from elapsed time.
TEST(Trainer, ResumeDropsMetricsLinesWrittenAfterTheCheckpoint) {
  auto steps_of = [](const fs::path& f) {
    std::vector<std::string> rows;
    std::ifstream in(f);
    for (std::string l; std::getline(in, l);) {
      nlohmann::json j = nlohmann::json::parse(l);
      rows.push_back(j.value("split", "") + "@" + std::to_string(j.value("step", -1L)));
    }
    return rows;
  };
  TempDir straight_dir, dir;
  ToyTask straight;
  TrainOptions so = options(straight_dir.path.string(), 2);
  so.train.log_every = 1;
  train(straight, so);

  ToyTask first;
  TrainOptions o = options(dir.path.string(), 2);
  o.train.log_every = 1;
  o.train.max_steps = 5;
  train(first, o);
  // What a process killed after step 7 would have left: two more train lines than the checkpoint knows.
  {
    std::ofstream out(dir.path / "metrics.jsonl", std::ios::app);
    out << R"({"split":"train","step":6,"loss":1})" << "\n" << R"({"split":"train","step":7,"loss":1})" << "\n";
  }
  ToyTask second(999);
  o.train.max_steps = 0;
  o.resume = true;
  train(second, o);
  EXPECT_EQ(steps_of(dir.path / "metrics.jsonl"), steps_of(straight_dir.path / "metrics.jsonl"));
}

TEST(Trainer, SigintSavesCheckpointAndResumeContinuesExactly) {
  TempDir straight_dir, dir;
  ToyTask straight;
  TrainOutcome full = train(straight, options(straight_dir.path.string(), 2));

  install_stop_signals();
  ToyTask first;
  first.raise_at_ = 5;   // SIGINT arrives during the 6th step
  TrainOptions o = options(dir.path.string(), 2);
  TrainOutcome part1 = train(first, o);
  clear_stop_request();
  std::signal(SIGINT, SIG_DFL);
  EXPECT_EQ(part1.stop_reason, StopReason::kSignal);
  EXPECT_EQ(part1.steps, 6);   // the step in flight completes, then the run saves and stops
  ToyTask second(999);
  o.resume = true;
  TrainOutcome part2 = train(second, o);
  EXPECT_EQ(part2.steps, 8);
  expect_same_params(straight.params(), second.params());
}

TEST(Trainer, NonFiniteLossStopsAndKeepsLastGoodParameters) {
  TempDir dir;
  ToyTask t;
  t.nan_at_ = 6;
  TrainOptions o = options(dir.path.string(), 3);
  TrainOutcome out = train(t, o);
  EXPECT_EQ(out.stop_reason, StopReason::kNonFinite);
  EXPECT_EQ(out.steps, 6);
  // The parameters are those after step 6 (= an uninterrupted run stopped at 6 steps).
  TempDir ref_dir;
  ToyTask ref;
  o.run_dir = ref_dir.path.string();
  o.train.max_steps = 6;
  train(ref, o);
  expect_same_params(ref.params(), t.params());
  for (auto& p : t.params().all()) EXPECT_TRUE(p->value.allFinite());
  // The checkpoint written at the end of epoch 1 is still readable.
  EXPECT_NO_THROW(load_named_mats((dir.path / "checkpoint.last.bin").string()));
}

TEST(Trainer, EarlyStoppingAfterPatienceEvaluations) {
  TempDir dir;
  ToyTask t;
  t.fixed_metric_ = true;   // never improves after the first evaluation
  TrainOptions o = options(dir.path.string(), 10);
  o.train.patience = 2;
  TrainOutcome out = train(t, o);
  EXPECT_EQ(out.stop_reason, StopReason::kEarlyStop);
  EXPECT_EQ(out.epochs_done, 3);   // evaluation 1 is the best, 2 and 3 stall
  // Resuming a run that stopped early trains no further.
  ToyTask again;
  o.resume = true;
  TrainOutcome out2 = train(again, o);
  EXPECT_EQ(out2.stop_reason, StopReason::kEarlyStop);
  EXPECT_TRUE(out2.losses.empty());
}

TEST(Trainer, WritesBestModelMetricsAndProgress) {
  TempDir dir;
  ToyTask t;
  TrainOptions o = options(dir.path.string(), 2);
  o.train.eval_every = 3;
  TrainOutcome out = train(t, o);
  EXPECT_TRUE(fs::exists(dir.path / "model.best.bin"));
  EXPECT_TRUE(fs::exists(dir.path / "progress.json"));
  std::ifstream in(dir.path / "metrics.jsonl");
  int dev_rows = 0, train_rows = 0;
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line);
    dev_rows += j["split"] == "dev";
    train_rows += j["split"] == "train";
  }
  EXPECT_EQ(dev_rows, 2);   // steps 3 and 6: with eval_every set, epochs end without an evaluation
  EXPECT_GE(train_rows, 2);
  EXPECT_EQ(out.best.primary_name, "loss");
}

// TWIN_PROFILE=1: profile.md holds the training steps' ops and products, per step, without the dev
// evaluations' (the toy evaluates on all 40 rows at once, a product the 10-row training batches never make).
TEST(Trainer, ProfileOfTrainingStepsLeavesOutDevEvaluations) {
  TempDir dir;
  ToyTask t;
  TrainOptions o = options(dir.path.string(), 2);
  o.train.eval_every = 1;   // as many evaluations as steps: counted in, affine would show 2 calls a step
  profile::set_enabled(true);
  train(t, o);
  const bool still_on = profile::enabled();
  profile::set_enabled(false);
  profile::reset();
  EXPECT_TRUE(still_on) << "the evaluations left profiling off";
  std::ifstream in(dir.path / "profile.md");
  ASSERT_TRUE(in.good()) << "no profile.md in " << dir.path;
  const std::string r((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(r.find("over the 8 steps this process trained (steps 1-8"), std::string::npos) << r;
  EXPECT_NE(r.find("| affine | 1 | "), std::string::npos) << r;
  EXPECT_NE(r.find("| dropout | 1 | "), std::string::npos) << r;
  EXPECT_NE(r.find("| 10x5x3 | NN | "), std::string::npos) << r;
  EXPECT_EQ(r.find("| 40x5x3 |"), std::string::npos) << "an evaluation's product was profiled:\n" << r;
}

TEST(Trainer, NoProfileFileWhenProfilingIsOff) {
  ASSERT_FALSE(profile::enabled()) << "TWIN_PROFILE is set in the test environment";
  TempDir dir;
  ToyTask t;
  train(t, options(dir.path.string(), 1));
  EXPECT_FALSE(fs::exists(dir.path / "profile.md"));
}

// TrainOptions::save_minutes: a checkpoint between evaluations by the clock (what a run killed without a signal
// resumes from). With a vanishing interval every step saves; without one, mid-epoch the only checkpoint is the
// one written before the first step. The timed saves change nothing the run computes.
TEST(Trainer, SaveMinutesWritesTheCheckpointBetweenEvaluations) {
  for (const double minutes : {1e-9, 0.0}) {
    TempDir dir;
    ToyTask t;
    TrainOptions o = options(dir.path.string(), 1);   // 4 batches, the evaluation at the epoch's end
    o.save_minutes = minutes;
    long saved_step = -1, saved_batch = -1;
    t.probe_ = [&](int calls) {
      if (calls != 3) return;
      const auto j = nlohmann::json::parse(std::ifstream(dir.path / "progress.json"));
      saved_step = j["step"].get<long>();
      saved_batch = j["batch"].get<long>();
    };
    const TrainOutcome out = train(t, o);
    EXPECT_EQ(saved_step, minutes > 0 ? 3 : 0) << "save_minutes " << minutes;
    EXPECT_EQ(saved_batch, minutes > 0 ? 3 : 0) << "save_minutes " << minutes;
    TempDir plain;
    ToyTask u;
    EXPECT_EQ(out.losses, train(u, options(plain.path.string(), 1)).losses);
    expect_same_params(t.params(), u.params());
  }
}

TEST(Trainer, ResumeWithoutCheckpointIsAnError) {
  TempDir dir;
  ToyTask t;
  TrainOptions o = options(dir.path.string(), 1);
  o.resume = true;
  try {
    train(t, o);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--resume: no checkpoint"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace twin
