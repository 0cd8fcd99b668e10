// Data-parallel training over MPI (core/train/dist.h), end to end through the real binaries and mpirun:
//  - equivalence: `mpirun --oversubscribe -np 2` (each rank computes half of every batch) gives the same
//    parameters after K steps as one process on the full batch, for the LM and NMT smoke experiments and a
//    few steps of the CWS, SNLI and classification ones
//    (dropout off: each rank draws its own masks, so with dropout the runs are equal in distribution only);
//  - resume: a 2-rank run stopped at step K/2 and resumed equals the uninterrupted 2-rank run exactly, and its
//    checkpoint has the single-process layout (the LM's carried state holds every stream);
//  - rank 0 alone writes: one metrics line per log event, not one per rank;
//  - a failure on one rank ends the whole job with the rank named, never a hang.
// Skipped (with the reason printed) when the build has no MPI or mpirun is not installed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "classify_synthetic.h"
#include "cws_synthetic.h"
#include "lm_synthetic.h"
#include "nmt_synthetic.h"
#include "rc_synthetic.h"
#include "snli_synthetic.h"
#include "test_util.h"
#include "train/checkpoint.h"
#include "train/dist.h"
#include "train/trainer.h"

namespace twin {
namespace {

namespace fs = std::filesystem;

std::string bin(const std::string& name) { return std::string(TW_BIN_DIR) + "/" + name; }

// Why MPI tests cannot run here, or "" when they can.
std::string mpi_missing() {
  if (!dist::built_with_mpi()) return "built without MPI (install libopenmpi-dev and re-run cmake)";
  if (std::system("command -v mpirun > /dev/null 2>&1") != 0) return "no mpirun on PATH (openmpi-bin)";
  return "";
}

// `mpirun` with its global options (the MPMD test adds its own -np parts after them).
std::string launcher() {
  std::string s;
#if defined(__SANITIZE_ADDRESS__)
  // make test-sanitize: Open MPI's components allocate at MPI_Init and are dlclose()d at MPI_Finalize, so LeakSanitizer
  // reports their blocks from "<unknown module>", which no suppression can name, and fails every rank at exit.
  // The ranks keep AddressSanitizer's memory-error checks and UBSan; only the leak check is off for them.
  s += "env ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 ";
#endif
  // Root in containers and CI: Open MPI refuses without these two flags.
  s += "mpirun --oversubscribe --mca btl self,vader ";
  if (geteuid() == 0) s += "--allow-run-as-root ";
  return s;
}

std::string mpirun(int np) { return launcher() + "-np " + std::to_string(np) + " "; }

struct Result {
  int code;
  std::string output;
};

Result run(const std::string& cmd) {
  const std::string out = (fs::temp_directory_path() / ("tw_mpi_" + std::to_string(getpid()) + ".log")).string();
  // `timeout`: a hang is a failure of its own, not a stuck test suite.
  const int rc = std::system(("timeout 240 " + cmd + " > " + out + " 2>&1").c_str());
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::remove(out);
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, text};
}

// Largest |a - b| over the parameters of two checkpoints (the same names must be in both).
double max_param_diff(const std::string& a, const std::string& b) {
  const NamedMats x = load_named_mats(a), y = load_named_mats(b);
  EXPECT_EQ(x.size(), y.size());
  double worst = 0;
  for (size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
    EXPECT_EQ(x[i].first, y[i].first);
    if (x[i].first.rfind("param/", 0) != 0) continue;
    EXPECT_EQ(x[i].second.rows(), y[i].second.rows()) << x[i].first;
    EXPECT_EQ(x[i].second.cols(), y[i].second.cols()) << x[i].first;
    if (x[i].second.size() != y[i].second.size()) return 1e9;
    worst = std::max(worst, static_cast<double>((x[i].second - y[i].second).cwiseAbs().maxCoeff()));
  }
  return worst;
}

int count_lines_with(const std::string& path, const std::string& needle) {
  std::ifstream in(path);
  int n = 0;
  for (std::string l; std::getline(in, l);) n += l.find(needle) != std::string::npos;
  return n;
}

// Plain SGD for the equivalence checks: Adam divides by the gradient's own scale, so it would hide a wrong loss
// denominator on the ranks, and it magnifies rounding differences of near-zero gradients.
const std::string kSgd = " --set train.optim.name=sgd --set train.optim.lr=0.5";

class Mpi : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string why = mpi_missing();
    if (!why.empty()) GTEST_SKIP() << why;
  }
  test::TempDir tmp;
};

TEST_F(Mpi, LmTwoRanksHalfBatchEqualOneProcessFullBatch) {
  const std::string data = tmp.str() + "/data";
  lm::write_synthetic_corpus(data, 17);
  const std::string common = bin("lm") + " " + TW_SOURCE_DIR + "/experiments/smoke/lm_atr.json --threads 1 --set data.dir=" +
                             data + " --set model.dropout=0 --set train.max_steps=24 --set train.log_every=4" + kSgd;
  const Result one = run(common + " --set out_dir=" + tmp.str() + "/one");
  ASSERT_EQ(one.code, 0) << one.output;
  const Result two = run(mpirun(2) + common + " --set out_dir=" + tmp.str() + "/two");
  ASSERT_EQ(two.code, 0) << two.output;
  EXPECT_NE(two.output.find("2 ranks, data-parallel"), std::string::npos) << two.output;
  const double d = max_param_diff(tmp.str() + "/one/checkpoint.last.bin", tmp.str() + "/two/checkpoint.last.bin");
  std::cout << "[ mpi ] LM smoke, 24 steps: max |param(1 process) - param(2 ranks)| = " << d << "\n";
  EXPECT_LE(d, 2e-5);
  // Rank 0 alone logs: as many train lines as the single process.
  EXPECT_EQ(count_lines_with(tmp.str() + "/two/metrics.jsonl", "\"train\""),
            count_lines_with(tmp.str() + "/one/metrics.jsonl", "\"train\""));
}

TEST_F(Mpi, NmtTwoRanksHalfBatchEqualOneProcessFullBatch) {
  const std::string data = tmp.str() + "/data";
  nmt::write_synthetic_parallel(data, 5);
  const std::string common = bin("nmt") + " " + TW_SOURCE_DIR + "/experiments/smoke/nmt_atr.json --threads 1 --set data.dir=" +
                             data + " --set train.max_steps=12 --set train.max_epochs=1" + kSgd;
  const Result one = run(common + " --set out_dir=" + tmp.str() + "/one");
  ASSERT_EQ(one.code, 0) << one.output;
  const Result two = run(mpirun(2) + common + " --set out_dir=" + tmp.str() + "/two");
  ASSERT_EQ(two.code, 0) << two.output;
  const double d = max_param_diff(tmp.str() + "/one/checkpoint.last.bin", tmp.str() + "/two/checkpoint.last.bin");
  std::cout << "[ mpi ] NMT smoke, 12 steps: max |param(1 process) - param(2 ranks)| = " << d << "\n";
  EXPECT_LE(d, 2e-5);
}

// The other tasks shard their batches the same way (train/id_batched_task.h: a contiguous share, the global denominator): a few SGD steps
// each, so a wrong share or denominator on one task shows here and not only in LM/NMT. (rc's dropout is off: each
// rank draws its own masks.)
TEST_F(Mpi, CwsSnliClassifyRcTwoRanksEqualOneProcess) {
  struct Case {
    const char* task;
    void (*write)(const std::string&);
    const char* extra;
  };
  const Case cases[] = {{"cws", [](const std::string& d) { cws::write_synthetic_cws(d, 3, 120, 20, 20); }, ""},
                        {"snli", [](const std::string& d) { snli::write_synthetic_snli(d, 3, 200, 20, 20); }, ""},
                        {"classify", [](const std::string& d) { classify::write_synthetic_sentiment(d, 3, 200, 20, 20); }, ""},
                        {"rc", [](const std::string& d) { rc::write_synthetic_squad(d, 3); },
                         " --set model.dropout=0 --set model.ptr_dropout=0"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.task);
    const std::string base = tmp.str() + "/" + c.task;
    c.write(base + "/data");
    const std::string common = bin(c.task) + " " + TW_SOURCE_DIR + "/experiments/smoke/" + c.task +
                               "_atr.json --threads 1 --set data.dir=" + base + "/data --set train.max_steps=6" + kSgd +
                               c.extra;
    const Result one = run(common + " --set out_dir=" + base + "/one");
    ASSERT_EQ(one.code, 0) << one.output;
    const Result two = run(mpirun(2) + common + " --set out_dir=" + base + "/two");
    ASSERT_EQ(two.code, 0) << two.output;
    const double d = max_param_diff(base + "/one/checkpoint.last.bin", base + "/two/checkpoint.last.bin");
    std::cout << "[ mpi ] " << c.task << " smoke, 6 steps: max |param(1 process) - param(2 ranks)| = " << d << "\n";
    EXPECT_LE(d, 2e-5);
  }
}

TEST_F(Mpi, ResumeUnderMpiEqualsUninterruptedAndKeepsTheSingleProcessLayout) {
  const std::string data = tmp.str() + "/data";
  lm::write_synthetic_corpus(data, 17);
  // Dropout on: each rank's masks come from (seed, step, rank), so a resumed run draws the same ones.
  const std::string common = mpirun(2) + bin("lm") + " " + TW_SOURCE_DIR +
                             "/experiments/smoke/lm_atr.json --threads 1 --set data.dir=" + data;
  const Result full = run(common + " --set train.max_steps=20 --set out_dir=" + tmp.str() + "/full");
  ASSERT_EQ(full.code, 0) << full.output;
  const Result half = run(common + " --set train.max_steps=9 --set out_dir=" + tmp.str() + "/part");
  ASSERT_EQ(half.code, 0) << half.output;
  // Mid-epoch: the carried LM state of both ranks is in the checkpoint, [batch x hidden] as one process writes it.
  bool carried = false;
  for (const auto& [name, m] : load_named_mats(tmp.str() + "/part/checkpoint.last.bin")) {
    if (name != "task/h0") continue;
    carried = true;
    EXPECT_EQ(m.rows(), 4) << "the smoke batch has 4 streams";
  }
  EXPECT_TRUE(carried) << "no task/h0 (the carried LM state) in the checkpoint";
  const Result rest = run(common + " --resume --set train.max_steps=20 --set out_dir=" + tmp.str() + "/part");
  ASSERT_EQ(rest.code, 0) << rest.output;
  EXPECT_EQ(max_param_diff(tmp.str() + "/full/checkpoint.last.bin", tmp.str() + "/part/checkpoint.last.bin"), 0.0);
}

// dist.h's collectives on hand-made values (tests/mpi_probe.cc says which), for 2 and 3 ranks.
TEST_F(Mpi, CollectivesSumGradientsAndBroadcastOnHandMadeValues) {
  for (int np : {2, 3}) {
    for (const char* mode : {"", " --differ"}) {
      const Result r = run(mpirun(np) + bin("twin_mpi_probe") + mode);
      EXPECT_EQ(r.code, 0) << np << " ranks" << mode << "\n" << r.output;
      EXPECT_NE(r.output.find("mpi_probe: ok (" + std::to_string(np) + " ranks"), std::string::npos) << r.output;
    }
  }
}

// One rank with another experiment (an MPMD launch stands in for a stale experiment file on one node): the job
// stops before training, naming the rank and the first differing line, instead of broadcasting mismatched
// parameters or silently training two models.
TEST_F(Mpi, RanksWithDifferentExperimentsStopNamingTheDifference) {
  const std::string data = tmp.str() + "/data";
  lm::write_synthetic_corpus(data, 17);
  const std::string app = bin("lm") + " " + TW_SOURCE_DIR + "/experiments/smoke/lm_atr.json --threads 1 --set data.dir=" +
                          data + " --set out_dir=" + tmp.str() + "/differ";
  const Result r = run(launcher() + "-np 1 " + app + " : -np 1 " + app + " --set model.cell.hidden=12");
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_NE(r.code, 124) << "timed out: a rank kept waiting\n" << r.output;
  EXPECT_NE(r.output.find("rank 1/2: error: the resolved experiment differs from rank 0's at line"),
            std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\"hidden\": 12"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(tmp.str() + "/differ/checkpoint.last.bin"));
}

TEST_F(Mpi, AFailureOnOneRankEndsTheJobNamingTheRank) {
  const std::string data = tmp.str() + "/data";
  lm::write_synthetic_corpus(data, 17);
  const Result r = run("env TWIN_FAIL_ON_RANK=1 " + mpirun(2) + bin("lm") + " " + TW_SOURCE_DIR +
                       "/experiments/smoke/lm_atr.json --threads 1 --set data.dir=" + data + " --set out_dir=" +
                       tmp.str() + "/fail");
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_NE(r.code, 124) << "timed out: the other rank kept waiting\n" << r.output;
  EXPECT_NE(r.output.find("rank 1/2: error"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(tmp.str() + "/fail/checkpoint.last.bin"));
}

}  // namespace
}  // namespace twin

namespace twin {
namespace {

TEST(DistShard, SplitsContiguouslyAsEvenlyAsPossibleInRankOrder) {
  // 10 items over 3 ranks: 4, 3, 3.
  const dist::Shard r0{0, 3}, r1{1, 3}, r2{2, 3};
  EXPECT_EQ(r0.begin(10), 0u);
  EXPECT_EQ(r0.end(10), 4u);
  EXPECT_EQ(r1.begin(10), 4u);
  EXPECT_EQ(r1.end(10), 7u);
  EXPECT_EQ(r2.begin(10), 7u);
  EXPECT_EQ(r2.end(10), 10u);
  // Fewer items than ranks: the last rank gets nothing.
  EXPECT_EQ(dist::Shard({2, 3}).items({5, 9}).size(), 0u);
  EXPECT_EQ(dist::Shard({1, 3}).items({5, 9}), std::vector<int>({9}));
  // One process: everything, in order.
  EXPECT_EQ(dist::Shard{}.items({3, 1, 2}), std::vector<int>({3, 1, 2}));
  // Every item exactly once over the ranks.
  std::vector<int> batch(17), seen;
  for (int i = 0; i < 17; ++i) batch[i] = 100 + i;
  for (int r = 0; r < 4; ++r)
    for (int x : dist::Shard{r, 4}.items(batch)) seen.push_back(x);
  EXPECT_EQ(seen, batch);
}

TEST(DistShard, RankStepRngDependsOnSeedStepAndRank) {
  auto first = [](std::uint64_t seed, long step, int rank) { return detail::rank_step_rng(seed, step, rank).uniform_int(0, 1LL << 40); };
  EXPECT_EQ(first(7, 3, 1), first(7, 3, 1));
  EXPECT_NE(first(7, 3, 1), first(7, 3, 0));
  EXPECT_NE(first(7, 3, 1), first(7, 4, 1));
  EXPECT_NE(first(7, 3, 1), first(8, 3, 1));
}

}  // namespace
}  // namespace twin
