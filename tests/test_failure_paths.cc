// Failure paths of a training run (issue 11), through the real lm binary in a child process: a read-only or
// missing run folder, a full disk, a data file deleted before a resume, a NaN from a too-high learning rate.
// Each must end with one clear line naming the file (exit 2; 3 for the non-finite stop, as run_main
// documents) and keep the last good checkpoint byte for byte, loadable, with no temp file left behind; a
// resume after the cause is removed must then work.
//
// A child process, not run_main in this one, because the conditions are per process: a file size limit
// (RLIMIT_FSIZE), another user (root ignores file permissions, so as root the child drops to uid 65534).
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "lm_synthetic.h"
#include "test_util.h"
#include "train/checkpoint.h"
#include "train/run_dir.h"

namespace twin {
namespace {

namespace fs = std::filesystem;
using test::contains;
using test::TempDir;

struct Child {
  long fsize_limit = -1;    // RLIMIT_FSIZE in bytes; SIGXFSZ ignored, so write() fails with EFBIG
  bool as_nobody = false;   // setuid(65534): permissions apply even when the tests run as root
};

struct Result {
  int code = -1;            // exit code; 128 + signal when killed
  std::string err;          // stderr
};

constexpr int kCannotDropRoot = 126;
constexpr int kNobodyCannotExec = 125;   // uid 65534 cannot reach the binary (e.g. under mktemp -d's 0700 folder)

Result run_lm(const std::vector<std::string>& args, const Child& c, const std::string& err_file) {
  std::vector<std::string> full = {std::string(TW_BIN_DIR) + "/lm"};
  full.insert(full.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : full) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int errfd = ::open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int nullfd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  EXPECT_GE(errfd, 0);
  const pid_t pid = ::fork();
  if (pid == 0) {   // only async-signal-safe calls until execv
    ::dup2(errfd, 2);
    ::dup2(nullfd, 1);
    if (c.fsize_limit >= 0) {
      ::signal(SIGXFSZ, SIG_IGN);   // survives execv: the write fails instead of killing the process
      const rlimit rl{static_cast<rlim_t>(c.fsize_limit), static_cast<rlim_t>(c.fsize_limit)};
      ::setrlimit(RLIMIT_FSIZE, &rl);
    }
    if (c.as_nobody && (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0))
      ::_exit(kCannotDropRoot);
    ::execv(argv[0], argv.data());
    ::_exit(c.as_nobody ? kNobodyCannotExec : 127);
  }
  ::close(errfd);
  ::close(nullfd);
  Result r;
  int status = 0;
  ::waitpid(pid, &status, 0);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.err = read_file(err_file);
  return r;
}

class FailurePaths : public ::testing::Test {
 protected:
  void SetUp() override {
    lm::write_synthetic_corpus(data_, 17, 40, 10, 10);
    run_ = tmp_.str("run");
  }

  Result lm(std::vector<std::string> extra, const Child& c = {}) {
    std::vector<std::string> a = {std::string(TW_SOURCE_DIR) + "/experiments/smoke/lm_atr.json", "--threads", "1",
                                  "--set", "data.dir=" + data_, "--set", "out_dir=" + run_};
    a.insert(a.end(), extra.begin(), extra.end());
    return run_lm(a, c, tmp_.str("stderr.txt"));
  }

  // A good first session: a dev evaluation at step 3 (model.best.bin), stopped after step 5
  // (checkpoint.last.bin). Remembers both files' bytes.
  // A 5-step run with dev evaluations every `eval_every` steps. The write-failure and NaN tests use 5: the evaluation
  // (and model.best.bin) at step 5 and none in a resume to step 8, so that the resume's only large write is
  // the checkpoint at its end (a resume keeps the run's eval_every).
  void train_good(std::vector<std::string> extra = {}, int eval_every = 3) {
    extra.insert(extra.end(), {"--set", "train.eval_every=" + std::to_string(eval_every), "--set", "train.max_steps=5"});
    const Result r = lm(extra);
    ASSERT_EQ(r.code, 0) << r.err;
    last_ = read_file(last_path());
    best_ = read_file(run_ + "/model.best.bin");
  }

  std::string last_path() const { return run_ + "/checkpoint.last.bin"; }

  // The checkpoints from before the failure are unchanged, load, and no temp file was left behind.
  void expect_checkpoints_intact() {
    EXPECT_EQ(read_file(last_path()), last_) << "checkpoint.last.bin changed";
    EXPECT_EQ(read_file(run_ + "/model.best.bin"), best_) << "model.best.bin changed";
    EXPECT_NO_THROW(load_named_mats(last_path()));
    EXPECT_NO_THROW(load_named_mats(run_ + "/model.best.bin"));
    for (const auto& e : fs::directory_iterator(run_))
      EXPECT_FALSE(contains(e.path().filename().string(), ".tmp-")) << "left behind: " << e.path();
  }

  // Once the cause is gone, the run continues from the kept checkpoint.
  void expect_resume_works() {
    const Result r = lm({"--resume", "--set", "train.max_steps=8"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(contains(r.err, "resumed from " + last_path() + " at epoch 1, batch 5, step 5")) << r.err;
  }

  TempDir tmp_{"fail"};
  std::string data_ = tmp_.str("data");
  std::string run_;
  std::string last_, best_;
};

TEST_F(FailurePaths, ReadOnlyRunFolderIsAClearErrorAndKeepsTheCheckpoint) {
  train_good();
  ASSERT_EQ(::chmod(run_.c_str(), 0555), 0);
  Child c;
  c.as_nobody = ::geteuid() == 0;
  const Result r = lm({"--resume", "--set", "train.max_steps=8"}, c);
  ::chmod(run_.c_str(), 0755);
  if (r.code == kCannotDropRoot) GTEST_SKIP() << "running as root and cannot setuid(65534): permissions not enforced";
  if (r.code == kNobodyCannotExec)
    GTEST_SKIP() << "running as root, and uid 65534 cannot execute " << TW_BIN_DIR
                 << "/lm (a parent folder is private, e.g. a clone under mktemp -d): permissions not testable here";
  EXPECT_EQ(r.code, 2) << r.err;
  // The first file a resume writes is the resolved config; the message names it, the cause and the folder.
  EXPECT_TRUE(contains(r.err, "lm: error: cannot write " + run_ + "/config.resolved.json: creating ")) << r.err;
  EXPECT_TRUE(contains(r.err, "Permission denied (HINT: the directory " + run_ + " is not writable)")) << r.err;
  expect_checkpoints_intact();
  expect_resume_works();
}

TEST_F(FailurePaths, RunFolderUnderAFileIsAClearError) {
  // Works as root too: no permission can make a regular file a directory.
  std::ofstream(tmp_.str("file")) << "x";
  run_ = tmp_.str("file") + "/run";
  const Result r = lm({});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "lm: error: cannot create run folder " + run_ + ": Not a directory")) << r.err;
}

// A full disk, portably: a file size limit makes write() fail (EFBIG) part-way through the checkpoint, the
// same code path as ENOSPC. The next test does it with a real full filesystem where one can be mounted.
TEST_F(FailurePaths, FileSizeLimitDuringCheckpointWriteKeepsTheOldCheckpoint) {
  train_good({}, 5);
  const long limit = 16384;   // above every other file the resume writes, below the checkpoint
  ASSERT_GT(static_cast<long>(last_.size()), limit);
  Child c;
  c.fsize_limit = limit;
  const Result r = lm({"--resume", "--set", "train.max_steps=8"}, c);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "lm: error: cannot write " + last_path() +
                                  ": write failed: File too large (the previous file, if any, is unchanged)"))
      << r.err;
  expect_checkpoints_intact();
  expect_resume_works();
}

TEST_F(FailurePaths, FullFilesystemDuringCheckpointWriteKeepsTheOldCheckpoint) {
  const std::string mnt = tmp_.str("small_fs");
  fs::create_directories(mnt);
  if (::geteuid() != 0 || ::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=512k") != 0)
    GTEST_SKIP() << "cannot mount a small tmpfs (needs root and CAP_SYS_ADMIN); the file-size-limit test covers "
                    "the same write path";
  struct Unmount {
    std::string at;
    ~Unmount() { ::umount2(at.c_str(), MNT_DETACH); }
  } unmount{mnt};
  run_ = mnt + "/run";
  train_good({}, 5);
  // Fill the filesystem up to 12 KiB: enough for the small files a resume rewrites, not for the checkpoint.
  struct statvfs st {};
  ASSERT_EQ(::statvfs(mnt.c_str(), &st), 0);
  const long free_bytes = static_cast<long>(st.f_bavail * st.f_frsize);
  ASSERT_GT(free_bytes, 12288);
  std::ofstream(mnt + "/filler", std::ios::binary) << std::string(static_cast<size_t>(free_bytes - 12288), 'x');
  const Result r = lm({"--resume", "--set", "train.max_steps=8"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "lm: error: cannot write " + last_path() +
                                  ": write failed: No space left on device (the previous file, if any, is unchanged)"))
      << r.err;
  expect_checkpoints_intact();
  fs::remove(mnt + "/filler");
  expect_resume_works();
}

TEST_F(FailurePaths, DataFileDeletedBeforeResumeIsAClearError) {
  train_good();
  fs::remove(data_ + "/valid.txt");
  const Result r = lm({"--resume"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "lm: error: LM data file " + data_ + "/valid.txt does not exist")) << r.err;
  expect_checkpoints_intact();
  lm::write_synthetic_corpus(data_, 17, 40, 10, 10);   // the same files again
  expect_resume_works();
}

// Every reader loads its files when the task is built, so a file deleted while a run trains (or before the
// final evaluation) changes nothing: the run finishes and evaluates from memory.
TEST_F(FailurePaths, DataFilesDeletedWhileTrainingChangeNothing) {
  // Slow enough (a checkpoint every step) that the deletion lands mid-run, in training or evaluation.
  const std::vector<std::string> args = {std::string(TW_BIN_DIR) + "/lm",
                                         std::string(TW_SOURCE_DIR) + "/experiments/smoke/lm_atr.json",
                                         "--threads", "1", "--set", "data.dir=" + data_, "--set", "out_dir=" + run_,
                                         "--set", "train.save_every=2", "--set", "train.max_epochs=3"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int nullfd = ::open("/dev/null", O_WRONLY);
    ::dup2(nullfd, 1);
    ::dup2(nullfd, 2);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  // Delete once training has started (its first checkpoint exists) and before the run ends.
  for (int i = 0; i < 2000 && !file_exists(last_path()); ++i) ::usleep(1000);
  const bool running = ::waitpid(pid, nullptr, WNOHANG) == 0;
  for (const char* f : {"train.txt", "valid.txt", "test.txt"}) fs::remove(data_ + "/" + f);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_TRUE(file_exists(run_ + "/summary.json"));
  if (!running) GTEST_SKIP() << "the run ended before the files were deleted (machine too fast for the timing)";
}

TEST_F(FailurePaths, NanFromTooHighLearningRateStopsAndKeepsTheCheckpoint) {
  train_good({"--set", "train.optim={\"name\":\"sgd\",\"lr\":1,\"clip_norm\":0}"}, 5);
  // lr is one of the keys a resume may change (with the budget: the run of 5 steps has finished; no step limit
  // now, so that it trains until the loss overflows).
  const Result r = lm({"--resume", "--set", "train.max_steps=0", "--set",
                       "train.optim={\"name\":\"sgd\",\"lr\":1000,\"clip_norm\":0}"});
  EXPECT_EQ(r.code, 3) << r.err;   // run_main's code for a non-finite stop
  EXPECT_TRUE(contains(r.err, "error: non-finite loss at epoch 1 step ")) << r.err;
  EXPECT_TRUE(contains(r.err, "The last good checkpoint is " + last_path() +
                                  " (HINT: lower the learning rate or set train.optim.clip_norm)"))
      << r.err;
  expect_checkpoints_intact();
  // With a sane rate, the run continues from the kept checkpoint.
  const Result ok = lm({"--resume", "--set", "train.max_steps=8", "--set",
                        "train.optim={\"name\":\"sgd\",\"lr\":1,\"clip_norm\":0}"});
  EXPECT_EQ(ok.code, 0) << ok.err;
}

TEST(StaleTempFiles, RemovedOnlyWhenTheirWriterIsGone) {
  TempDir d;
  const std::string dead = d.file(".checkpoint.last.bin.tmp-2147483646-0");   // above any pid_max: no such process
  const std::string mine = d.file(".progress.json.tmp-" + std::to_string(::getpid()) + "-3");
  const std::string other = d.file("notes.tmp-1-1");                          // not hidden: not ours
  for (const auto& f : {dead, mine, other}) std::ofstream(f) << "partial";
  EXPECT_EQ(remove_stale_temp_files(d.str()), 1);
  EXPECT_FALSE(file_exists(dead));
  EXPECT_TRUE(file_exists(mine));
  EXPECT_TRUE(file_exists(other));
}

}  // namespace
}  // namespace twin
