// Regression tests for what tests/crash_resume.py (kill -9 at random moments) found: a run killed after a
// periodic checkpoint must resume exactly where that checkpoint was, metrics.jsonl included.
//   * a periodic save (save_every, eval_every) recorded the batch it had just trained, so a resume trained
//     that batch a second time (TrainerResume only stopped through max_steps, which records the next one);
//   * a kill between an end-of-epoch evaluation and the checkpoint after it left the dev line at the same
//     step as the older checkpoint, so it appeared twice (resume now keeps the lines the checkpoint counted);
//   * the first train line after a resume averaged fewer steps (the log window is now in the checkpoint);
//   * summary.json's epochs_done counted only the last session's epochs.
// A kill is simulated in-process: the wrapped task throws at a chosen call, so nothing after it is saved.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "lm_synthetic.h"
#include "lm_task.h"
#include "smoke_run.h"
#include "test_util.h"
#include "train/checkpoint.h"
#include "train/cli.h"

namespace twin {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

struct Killed {};

// The LM task, "killed" at its n-th loss() or save_state() call (0-based; -1: never).
class KillableLm : public lm::LmTask {
 public:
  using lm::LmTask::LmTask;
  LossOut loss(Graph& g, size_t batch, Rng& rng) {
    if (loss_calls_++ == kill_at_loss) throw Killed{};
    return lm::LmTask::loss(g, batch, rng);
  }
  NamedMats save_state() const {
    if (save_calls_++ == kill_at_save) throw Killed{};
    return lm::LmTask::save_state();
  }
  int kill_at_loss = -1, kill_at_save = -1;

 private:
  int loss_calls_ = 0;
  mutable int save_calls_ = 0;
};

class ResumeAfterKill : public ::testing::Test {
 protected:
  void SetUp() override { lm::write_synthetic_corpus(data_.str(), 17, 40, 10, 10); }

  nlohmann::json config(const std::string& out, const nlohmann::json& train) {
    nlohmann::json c = test::smoke_config("lm_atr.json", data_.str(), out);
    c["train"]["max_epochs"] = 2;
    c["train"].update(train);
    return c;
  }

  // One session; returns false when the task was "killed".
  bool session(const nlohmann::json& c, bool resume, int kill_at_loss, int kill_at_save, TrainOutcome* out) {
    JsonReader root(c, "resume_test.json");
    RunConfig rc = parse_run(root);
    JsonReader tr = root.child("train");
    TrainConfig tc = parse_train(tr);
    KillableLm task(root, rc, tc, CliArgs{});
    root.finish();
    task.kill_at_loss = kill_at_loss;
    task.kill_at_save = kill_at_save;
    set_num_threads(1);
    TrainOptions o;
    o.run = rc;
    o.train = tc;
    o.run_dir = rc.out_dir;
    o.resume = resume;
    o.quiet = true;
    o.config = c;
    try {
      *out = train(task, o);
    } catch (const Killed&) {
      return false;
    }
    return true;
  }

  // metrics.jsonl without its wall-clock values.
  static std::vector<nlohmann::json> rows(const std::string& run) {
    std::vector<nlohmann::json> r;
    std::ifstream in(run + "/metrics.jsonl");
    for (std::string l; std::getline(in, l);) {
      nlohmann::json j = nlohmann::json::parse(l);
      j.erase("elapsed_s");
      j.erase("units_s");
      r.push_back(j);
    }
    return r;
  }

  static void expect_same_checkpoint(const std::string& a, const std::string& b) {
    const NamedMats ma = load_named_mats(a), mb = load_named_mats(b);
    ASSERT_EQ(ma.size(), mb.size()) << a;
    for (size_t i = 0; i < ma.size(); ++i) {
      EXPECT_EQ(ma[i].first, mb[i].first);
      EXPECT_TRUE(ma[i].second == mb[i].second) << ma[i].first << " differs in " << b;
    }
  }

  // A straight run and a run killed once (at the given call) then resumed to the end must be identical.
  void expect_kill_and_resume_exact(const nlohmann::json& train, int kill_at_loss, int kill_at_save) {
    const std::string straight = out_.str("straight"), killed = out_.str("killed");
    TrainOutcome full, part;
    ASSERT_TRUE(session(config(straight, train), false, -1, -1, &full));
    ASSERT_FALSE(session(config(killed, train), false, kill_at_loss, kill_at_save, &part)) << "no kill happened";
    ASSERT_TRUE(session(config(killed, train), true, -1, -1, &part));
    EXPECT_EQ(part.steps, full.steps);
    EXPECT_EQ(part.epochs_done, full.epochs_done);
    EXPECT_EQ(part.epochs_done, 2);
    EXPECT_EQ(rows(killed), rows(straight));
    expect_same_checkpoint(straight + "/checkpoint.last.bin", killed + "/checkpoint.last.bin");
    expect_same_checkpoint(straight + "/model.best.bin", killed + "/model.best.bin");
  }

  TempDir data_{"rdata"}, out_{"rout"};
};

// Killed during step 6 (loss call 5) after the checkpoint of step 4: mid-epoch, with the LM's carried state
// and a log window (log_every 3) open at the checkpoint.
TEST_F(ResumeAfterKill, MidEpochAfterAPeriodicCheckpoint) {
  expect_kill_and_resume_exact({{"save_every", 2}, {"log_every", 3}}, 5, -1);
}

// Killed after the end-of-epoch dev evaluation was logged but before the checkpoint that follows it, with a
// periodic checkpoint on the epoch's last step: the checkpoint before the kill is at the evaluation's step.
TEST_F(ResumeAfterKill, BetweenTheEpochEvaluationAndItsCheckpoint) {
  TrainOutcome probe;
  ASSERT_TRUE(session(config(out_.str("probe"), {{"max_epochs", 1}}), false, -1, -1, &probe));
  const int per_epoch = static_cast<int>(probe.steps);
  ASSERT_GT(per_epoch, 2);
  // save_state calls: 0 at the periodic save of step per_epoch, 1 at the epoch-end checkpoint.
  expect_kill_and_resume_exact({{"save_every", per_epoch}, {"log_every", 1}}, -1, 1);
}

// With dev evaluations every few steps (each one saves), a kill right after one resumes exactly too.
TEST_F(ResumeAfterKill, AfterAMidEpochEvaluation) {
  expect_kill_and_resume_exact({{"eval_every", 4}, {"keep_snapshots", 2}, {"log_every", 2}}, 5, -1);
}

}  // namespace
}  // namespace twin
