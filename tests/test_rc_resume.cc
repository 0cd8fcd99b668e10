// The rc binary killed with SIGKILL in the middle of training and resumed (--resume) finishes exactly as an
// uninterrupted run of the same experiment (issue 53: "rc ... resumes exactly after SIGKILL"): every metrics.jsonl
// line but its timings, summary.json's scores and budget, the parameters, optimiser state and progress of
// checkpoint.last.bin, model.best.bin, and the kept predictions. The real binary in a child process (a signal
// that cannot be caught, at whatever point of a step or a checkpoint write it lands); dropout is on, so the
// step's random numbers must resume too. tests/crash_resume.py kills the LM at random moments many times.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "base/file_io.h"
#include "rc_synthetic.h"
#include "smoke_run.h"
#include "test_util.h"
#include "train/checkpoint.h"

namespace twin::rc {
namespace {

namespace fs = std::filesystem;
using twin::test::TempDir;
using nlohmann::json;

// Starts build/bin/rc with `args` (stdout and stderr to `log`); returns its pid.
pid_t start_rc(const std::vector<std::string>& args, const std::string& log) {
  std::vector<std::string> full = {std::string(TW_BIN_DIR) + "/rc"};
  full.insert(full.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : full) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  const pid_t pid = ::fork();
  if (pid == 0) {   // only async-signal-safe calls until execv
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(fd);
  return pid;
}

int wait_exit(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The training step of the run's last checkpoint (progress.json, written beside it), or -1.
long checkpoint_step(const std::string& run) {
  try {
    return json::parse(read_file(run + "/progress.json")).at("step").get<long>();
  } catch (...) {   // absent, or caught between its write and rename: not yet
    return -1;
  }
}

std::vector<json> metrics_rows(const std::string& run) {
  std::vector<json> rows;
  std::ifstream in(run + "/metrics.jsonl");
  for (std::string l; std::getline(in, l);) {
    json r = json::parse(l);
    for (const char* timing : {"elapsed_s", "units_s", "decode_questions_s"}) r.erase(timing);
    rows.push_back(r);
  }
  return rows;
}

json scores(const json& m) {   // a split's metrics without the decoding speed
  json s = m;
  s.erase("decode_questions_s");
  return s;
}

void expect_same_mats(const std::string& a, const std::string& b) {
  const NamedMats ma = load_named_mats(a), mb = load_named_mats(b);
  ASSERT_EQ(ma.size(), mb.size()) << b;
  for (size_t i = 0; i < ma.size(); ++i) {
    EXPECT_EQ(ma[i].first, mb[i].first);
    EXPECT_TRUE(ma[i].second == mb[i].second) << ma[i].first << " differs in " << b;
  }
}

TEST(RcResume, KilledWithSigkillAndResumedEqualsAnUninterruptedRun) {
  TempDir data("rc_data"), work("rc_kill");
  write_synthetic_squad(data.str(), 21);
  json c = twin::test::smoke_config("rc_atr.json", data.str(), "unused");
  c["data"]["max_train_questions"] = 0;
  // A checkpoint after every step, an evaluation (model.best.bin) every 5: kills land in writes too.
  c["train"].update({{"max_epochs", 4}, {"save_every", 1}, {"eval_every", 5}, {"log_every", 3}});
  const std::string exp = work.write("exp.json", c.dump(2));
  auto args = [&](const std::string& run) {
    return std::vector<std::string>{exp, "--threads", "1", "--set", "out_dir=" + json(run).dump()};
  };
  const std::string straight = work.str("straight"), killed = work.str("killed");
  ASSERT_EQ(wait_exit(start_rc(args(straight), work.file("straight.log"))), 0) << read_file(work.file("straight.log"));
  const long total = json::parse(read_file(straight + "/summary.json"))["steps"].get<long>();
  ASSERT_GT(total, 20) << "a run long enough to be killed in the middle";

  // Killed once the checkpoint of step total/3 exists, resumed and killed again after two thirds, then resumed to
  // the end.
  auto session = [&](bool resume) {
    std::vector<std::string> a = args(killed);
    if (resume) a.push_back("--resume");
    return start_rc(a, work.file("killed.log"));
  };
  bool resume = false;
  for (const long at : {total / 3, 2 * total / 3}) {
    const pid_t pid = session(resume);
    while (checkpoint_step(killed) < at && ::waitpid(pid, nullptr, WNOHANG) == 0)
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    ::kill(pid, SIGKILL);
    ASSERT_EQ(wait_exit(pid), 128 + SIGKILL) << "the session ended before the kill at step " << at << ":\n"
                                             << read_file(work.file("killed.log"));
    resume = true;
  }
  ASSERT_EQ(wait_exit(session(true)), 0) << read_file(work.file("killed.log"));

  EXPECT_EQ(metrics_rows(killed), metrics_rows(straight));
  const json a = json::parse(read_file(straight + "/summary.json"));
  const json b = json::parse(read_file(killed + "/summary.json"));
  for (const char* k : {"steps", "epochs_done", "stop_reason", "params", "evaluated_model"}) EXPECT_EQ(a[k], b[k]) << k;
  for (const char* k : {"dev", "test", "best_dev"}) EXPECT_EQ(scores(a[k]), scores(b[k])) << k;
  expect_same_mats(straight + "/checkpoint.last.bin", killed + "/checkpoint.last.bin");
  expect_same_mats(straight + "/model.best.bin", killed + "/model.best.bin");
  for (const char* f : {"predictions/dev.json", "predictions/heldout.json", "vocab.words.txt", "vocab.chars.txt"})
    EXPECT_EQ(read_file(killed + "/" + f), read_file(straight + "/" + f)) << f;
}

}  // namespace
}  // namespace twin::rc
