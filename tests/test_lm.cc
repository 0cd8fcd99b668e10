// PTB language-model task: batchify/windows on hand-made streams, perplexity on a hand-computed case,
// golden smoke losses, exact resume with the carried state, the real PTB reader, and the bad-input table.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "data/text.h"
#include "lm_gates.h"
#include "lm_score.h"
#include "lm_synthetic.h"
#include "lm_task.h"
#include "test_util.h"
#include "train/run_dir.h"

namespace twin::lm {
namespace {

namespace fs = std::filesystem;
using twin::test::TempDir;

TEST(LmData, BatchifyColumnsAreContiguousChunks) {
  Ids s(11);
  for (int i = 0; i < 11; ++i) s[static_cast<size_t>(i)] = i;
  IdMat d = batchify(s, 3);   // L = 3, the tail (9, 10) is dropped
  ASSERT_EQ(d.rows(), 3);
  ASSERT_EQ(d.cols(), 3);
  for (int b = 0; b < 3; ++b)
    for (int t = 0; t < 3; ++t) EXPECT_EQ(d(t, b), 3 * b + t);
  EXPECT_THROW(batchify(s, 6), Error);   // 1 token per column cannot give an input and a target
}

TEST(LmData, BpttWindowsShiftTargetsByOneAndShortenTheLast) {
  Ids s(12);
  for (int i = 0; i < 12; ++i) s[static_cast<size_t>(i)] = i;
  IdMat d = batchify(s, 2);   // L = 6: column 0 = 0..5, column 1 = 6..11
  EXPECT_EQ(num_windows(d, 2), 3);
  IdMat in, tg;
  window(d, 0, 2, in, tg);
  EXPECT_EQ(in.rows(), 2);
  EXPECT_EQ(in(0, 0), 0);
  EXPECT_EQ(in(1, 1), 7);
  EXPECT_EQ(tg(0, 0), 1);
  EXPECT_EQ(tg(1, 1), 8);
  window(d, 2, 2, in, tg);   // rows 4 -> 5: only one step left
  EXPECT_EQ(in.rows(), 1);
  EXPECT_EQ(in(0, 1), 10);
  EXPECT_EQ(tg(0, 1), 11);
  EXPECT_THROW(window(d, 3, 2, in, tg), Error);
}

// Every weight zero and the output bias b = [0, ln 2, ln 3, 0]: p = [1, 2, 3, 1] / 7 at every position.
struct HandLm {
  ParamStore store;
  std::unique_ptr<LmModel> model;
  HandLm() {
    LmModelConfig cfg;
    cfg.embed = 3;
    cfg.layers = 1;
    cfg.cell.type = "atr";
    cfg.cell.hidden = 3;
    model = std::make_unique<LmModel>(cfg, 4, store);
    for (auto& p : store.all()) p->value.setZero();
    Mat& b = store.get("lm/out/b").value;
    b(0, 1) = static_cast<Real>(std::log(2.0));
    b(0, 2) = static_cast<Real>(std::log(3.0));
  }
};

TEST(LmEval, PerplexityEqualsExpMeanNllOnAHandComputedCase) {
  const HandLm hand;
  const LmModel& model = *hand.model;
  // batch 2: columns {0,1,2,3,0} and {1,2,3,0,1}; predicted tokens 1,2,3,0 and 2,3,0,1 (two of each id).
  const Ids stream = {0, 1, 2, 3, 0, 1, 2, 3, 0, 1};
  PplResult r = stream_perplexity(model, stream, 2, 3);
  EXPECT_EQ(r.tokens, 8);
  const double mean_nll = std::log(7.0) - std::log(6.0) / 4;   // (2·ln7 + 2·ln(7/2) + 2·ln(7/3) + 2·ln7) / 8
  EXPECT_NEAR(r.nll / r.tokens, mean_nll, 1e-5);
  EXPECT_NEAR(r.ppl(), 7.0 / std::pow(6.0, 0.25), 1e-4);
}

TEST(LmEval, PerSentenceLogProbabilitiesOnAHandComputedCase) {
  const HandLm hand;   // p = [1, 2, 3, 1] / 7 for ids 0..3 at every position
  const LmModel& model = *hand.model;
  const Ids stream = {0, 1, 2, 3, 0, 1, 2, 3, 0, 1};   // id 3 plays <eos>: sentences 0 1 2 3 | 0 1 2 3 | 0 1
  std::vector<double> nll;
  const PplResult r = stream_perplexity(model, stream, 2, 3, &nll);
  const PplResult summed = stream_perplexity(model, stream, 2, 3);   // the training loss's path
  EXPECT_EQ(r.tokens, 8);
  EXPECT_NEAR(r.nll, summed.nll, 1e-4);
  // batch 2 over 10 tokens: columns start at positions 0 and 5, which nothing predicts
  ASSERT_EQ(nll.size(), stream.size());
  EXPECT_TRUE(std::isnan(nll[0]));
  EXPECT_TRUE(std::isnan(nll[5]));
  const double l7 = std::log(7.0);
  EXPECT_NEAR(nll[2], l7 - std::log(3.0), 1e-5);   // stream[2] = 2
  EXPECT_NEAR(nll[9], l7 - std::log(2.0), 1e-5);   // stream[9] = 1
  // sentence 1 scores positions 1-3 (ids 1 2 3), sentence 2 positions 4, 6, 7 (ids 0 2 3), sentence 3 8-9 (0 1)
  const double s1 = std::log(2.0) + std::log(3.0) - 3 * l7, s2 = std::log(3.0) - 3 * l7, s3 = std::log(2.0) - 2 * l7;
  const std::string lines = sentence_logprob_lines(stream, nll, 3);
  std::istringstream in(lines);
  double lp = 0;
  long n = 0;
  for (const auto& [want_lp, want_n] : std::vector<std::pair<double, long>>{{s1, 3}, {s2, 3}, {s3, 2}}) {
    ASSERT_TRUE(in >> lp >> n) << lines;
    EXPECT_NEAR(lp, want_lp, 1e-5);
    EXPECT_EQ(n, want_n);
  }
  EXPECT_FALSE(in >> lp) << "one line per sentence: " << lines;
  EXPECT_NEAR(std::exp(-(s1 + s2 + s3) / 8), r.ppl(), 1e-4);
  EXPECT_THROW(sentence_logprob_lines(stream, std::vector<double>(3, 0.0), 3), Error);
}

nlohmann::json smoke_config(const std::string& data_dir, const std::string& out_dir) {
  std::ifstream in(std::string(TW_SOURCE_DIR) + "/experiments/smoke/lm_atr.json");
  nlohmann::json j = nlohmann::json::parse(in);
  j["data"]["dir"] = data_dir;
  j["out_dir"] = out_dir;
  return j;
}

struct SmokeRun {
  std::unique_ptr<LmTask> task;
  TrainOutcome out;
};

SmokeRun run_smoke(const nlohmann::json& j, const std::string& out_dir, long max_steps, bool resume,
                   int threads = 1) {
  JsonReader root(j, "smoke/lm_atr.json");
  RunConfig run = parse_run(root);
  JsonReader tr = root.child("train");
  TrainConfig tc = parse_train(tr);
  CliArgs args;
  SmokeRun s;
  s.task = std::make_unique<LmTask>(root, run, tc, args);
  root.finish();
  set_num_threads(threads);
  TrainOptions o;
  o.run = run;
  o.train = tc;
  o.train.max_steps = max_steps;
  o.run_dir = out_dir;
  o.resume = resume;
  o.quiet = true;
  s.out = train(*s.task, o);
  return s;
}

TEST(LmSmoke, LossDropsAndFirstLossesMatchGolden) {
  TempDir data("data"), out("out");
  write_synthetic_corpus(data.str(), 17);
  SmokeRun s = run_smoke(smoke_config(data.str(), out.str()), out.str(), 0, false);
  const auto& L = s.out.losses;
  ASSERT_GE(L.size(), 30u);
  double first = 0, last = 0;
  for (size_t i = 0; i < 5; ++i) first += L[i] / 5, last += L[L.size() - 1 - i] / 5;
  EXPECT_LT(last, first - 0.5) << "training loss did not drop";
  EXPECT_LT(s.task->evaluate(Split::kTest).primary, 15.0);   // a uniform model over ~27 words scores ~27

  const std::string golden = std::string(TW_SOURCE_DIR) + "/tests/golden/lm_smoke.json";
  const char* regen = std::getenv("TW_REGEN_GOLDEN");
  if (regen && std::string(regen) == "1") {
    nlohmann::json doc = {{"about", "first 5 training losses of experiments/smoke/lm_atr.json on "
                                    "write_synthetic_corpus(seed 17); regenerate with TW_REGEN_GOLDEN=1"},
                          {"losses", std::vector<double>(L.begin(), L.begin() + 5)}};
    std::ofstream(golden) << doc.dump(2) << "\n";
    GTEST_SKIP() << "rewrote " << golden;
  }
  std::ifstream in(golden);
  ASSERT_TRUE(in.good()) << "missing " << golden << " (generate it with TW_REGEN_GOLDEN=1)";
  const auto want = nlohmann::json::parse(in)["losses"].get<std::vector<double>>();
  ASSERT_EQ(want.size(), 5u);
  for (size_t i = 0; i < 5; ++i) EXPECT_NEAR(L[i], want[i], 1e-4) << "loss " << i;
}

TEST(LmSmoke, StopAndResumeMidEpochEqualsStraightRun) {
  // The carried hidden state is task state: a resumed run must continue it, not restart from zeros.
  TempDir data("data"), a("a"), b("b");
  write_synthetic_corpus(data.str(), 17);
  SmokeRun straight = run_smoke(smoke_config(data.str(), a.str()), a.str(), 0, false);
  SmokeRun part1 = run_smoke(smoke_config(data.str(), b.str()), b.str(), 7, false);
  SmokeRun part2 = run_smoke(smoke_config(data.str(), b.str()), b.str(), 0, true);
  std::vector<double> joined = part1.out.losses;
  joined.insert(joined.end(), part2.out.losses.begin(), part2.out.losses.end());
  EXPECT_EQ(joined, straight.out.losses);
  EXPECT_EQ(part2.task->evaluate(Split::kTest).primary, straight.task->evaluate(Split::kTest).primary);
}

TEST(LmSmoke, TwoThreadRunsWithTheSameSeedAreBitIdentical) {
  // Large enough that the projections go to multi-threaded OpenBLAS and Eigen ([256 x 256] x [256 x 768]).
  TempDir data("data"), a("a"), b("b");
  write_synthetic_corpus(data.str(), 17);
  auto cfg = [&](const TempDir& out) {
    nlohmann::json j = smoke_config(data.str(), out.str());
    j["model"]["embed"] = 256;
    j["model"]["cell"]["hidden"] = 256;
    j["model"]["cell"]["type"] = "lstm";
    j["data"]["bptt"] = 16;
    j["train"]["batch_size"] = 16;
    return j;
  };
  SmokeRun r1 = run_smoke(cfg(a), a.str(), 12, false, 2);
  SmokeRun r2 = run_smoke(cfg(b), b.str(), 12, false, 2);
  set_num_threads(1);
  ASSERT_EQ(r1.out.losses.size(), 12u);
  EXPECT_EQ(r1.out.losses, r2.out.losses);
  EXPECT_EQ(r1.task->evaluate(Split::kDev).primary, r2.task->evaluate(Split::kDev).primary);
}

TEST(LmData, RealPtbCountsWhenTheCorpusIsPresent) {
  const char* env = std::getenv("RAW_DATA");
  const fs::path raw = fs::path(env ? env : std::string(TW_SOURCE_DIR) + "/../shared/data") / "ptb";
  if (!fs::exists(raw / "ptb.valid.txt")) GTEST_SKIP() << "no PTB at " << raw << " (set RAW_DATA to run this)";
  LmDataConfig c;
  c.dir = raw.string();
  c.train = fs::exists(raw / "ptb.train.txt") ? "ptb.train.txt" : "ptb.train.txt.gz";
  c.valid = "ptb.valid.txt";
  c.test = "ptb.test.txt";
  LmCorpus corpus = load_corpus(c);
  EXPECT_EQ(corpus.train.size(), 929589u);
  EXPECT_EQ(corpus.valid.size(), 73760u);
  EXPECT_EQ(corpus.test.size(), 82430u);
  EXPECT_EQ(corpus.vocab.size(), 10000);
}

// The reader refuses what it cannot read as this corpus: invalid UTF-8 (random bytes in place of a prepared
// split) and, by default, a word outside the vocabulary; data.oov = "unk" maps such words and counts them.
class LmReader : public ::testing::Test {
 protected:
  void write(const std::string& name, const std::string& text) { std::ofstream(dir_.str(name), std::ios::binary) << text; }
  LmDataConfig config() const {
    LmDataConfig c;
    c.dir = dir_.str();
    return c;
  }
  std::string error_of(const LmDataConfig& c) {
    try {
      (void)load_corpus(c);
    } catch (const Error& e) {
      return e.what();
    }
    return "(no error)";
  }
  TempDir dir_{"lmreader"};
};

TEST_F(LmReader, AWordOutsideTheVocabularyIsAnErrorNamingFileLineAndWord) {
  write("train.txt", "a b <unk>\nb c\n");
  write("valid.txt", "a b\nc zebra a\n");
  write("test.txt", "a\n");
  const std::string err = error_of(config());
  EXPECT_NE(err.find(dir_.str("valid.txt") + ":2: word 'zebra' is not in the vocabulary"), std::string::npos) << err;
  EXPECT_NE(err.find("data.oov = \"unk\""), std::string::npos) << err;
}

TEST_F(LmReader, OovUnkMapsAndCountsPerSplit) {
  write("train.txt", "a b <unk>\nb c\n");
  write("valid.txt", "a b\nc zebra a\n");   // 5 words + 2 <eos>: 1 mapped
  write("test.txt", "yak yak\n");           // 2 words + 1 <eos>: 2 mapped
  LmDataConfig c = config();
  c.oov = LmOov::kUnk;
  const LmCorpus corpus = load_corpus(c);
  const std::int32_t unk = corpus.vocab.find("<unk>");
  ASSERT_GE(unk, 0);
  EXPECT_EQ(corpus.valid[4], unk);
  EXPECT_EQ(std::count(corpus.valid.begin(), corpus.valid.end(), unk), 1);
  EXPECT_EQ(std::count(corpus.test.begin(), corpus.test.end(), unk), 2);
  ASSERT_EQ(corpus.notes.size(), 2u);   // train has no unknown word: no note
  EXPECT_EQ(corpus.notes[0], dir_.str("valid.txt") + ": 1 of 7 tokens were not in the vocabulary and were mapped "
                             "to <unk> (data.oov = \"unk\")");
  EXPECT_NE(corpus.notes[1].find("test.txt: 2 of 3 tokens"), std::string::npos) << corpus.notes[1];
  // Without <unk> in the vocabulary there is nothing to map to: still an error naming the word.
  write("train.txt", "a b\nb c\n");
  EXPECT_NE(error_of(c).find("word 'zebra' is not in the vocabulary and it has no <unk>"), std::string::npos);
}

TEST_F(LmReader, InvalidUtf8IsAnErrorNamingFileLineAndByte) {
  write("train.txt", "a b\nb c\n");
  write("valid.txt", "a b\nb \xff c\n");
  write("test.txt", "a\n");
  const std::string err = error_of(config());
  EXPECT_NE(err.find(dir_.str("valid.txt") + ":2: invalid UTF-8 at byte 2 of the line"), std::string::npos) << err;
  // Random bytes in place of the prepared split: refused, not scored.
  std::string noise;
  std::uint32_t x = 12345;
  for (int i = 0; i < 4000; ++i) {
    x = x * 1664525u + 1013904223u;
    noise.push_back(static_cast<char>(x >> 24));
  }
  write("valid.txt", noise);
  EXPECT_NE(error_of(config()).find(dir_.str("valid.txt") + ":"), std::string::npos);
}

// The bad-input table, through the real command line: each is one clear line on stderr and exit code 2.
class LmCli : public ::testing::Test {
 protected:
  void SetUp() override {
    write_synthetic_corpus(data_.str(), 17, 40, 10, 10);
    config_ = smoke_config(data_.str(), out_.str("run"));
    std::ofstream(cfg_.str("exp.json")) << config_.dump(2);
  }
  int run(std::vector<std::string> extra, std::string* err) {
    std::vector<std::string> args = {"lm", cfg_.str("exp.json")};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    ::testing::internal::CaptureStderr();
    ::testing::internal::CaptureStdout();
    const int rc = run_main<LmTask>(static_cast<int>(argv.size()), argv.data(), "lm");
    *err = ::testing::internal::GetCapturedStderr();
    ::testing::internal::GetCapturedStdout();
    return rc;
  }
  void expect_error(std::vector<std::string> extra, const std::string& needle) {
    std::string err;
    EXPECT_EQ(run(extra, &err), 2) << err;
    EXPECT_NE(err.find(needle), std::string::npos) << "stderr was: " << err;
  }
  TempDir data_{"clidata"}, out_{"cliout"}, cfg_{"clicfg"};
  nlohmann::json config_;
};

TEST_F(LmCli, BadInputGivesOneLineErrors) {
  expect_error({"--set", "data.dir=" + data_.str("missing")}, "does not exist");
  std::ofstream(data_.str("empty.txt")).flush();
  expect_error({"--set", "data.train=empty.txt"}, "no text");
  expect_error({"--set", "model.cel.type=atr"}, "unknown key");
  expect_error({"--set", "model.cell.type=atrr"}, "atr");
  expect_error({"--set", "train.batch_size=\"20\""}, "train.batch_size");
  expect_error({"--resume"}, "--resume: no checkpoint");
  expect_error({"--eval-only"}, "--eval-only: no trained model");
  expect_error({"--bogus"}, "unknown option");
  EXPECT_FALSE(fs::exists(out_.str("run/model.best.bin")));
}

TEST_F(LmCli, TrainsResumesAndRefusesToOverwriteARun) {
  std::string err;
  // Issue 29's sequence: a run started with --set flags, resumed with a plain --resume.
  ASSERT_EQ(run({"--set", "train.max_steps=5", "--set", "model.cell.output=tanh"}, &err), 0) << err;
  ASSERT_TRUE(fs::exists(out_.str("run/summary.json")));
  ASSERT_TRUE(fs::exists(out_.str("run/config.resolved.json")));
  const auto before = fs::last_write_time(out_.str("run/checkpoint.last.bin"));
  const std::string summary0 = read_file(out_.str("run/summary.json"));
  const std::string commands0 = read_file(out_.str("run/command.txt"));
  expect_error({}, "already holds a run");   // a fresh start must not overwrite the run
  EXPECT_EQ(fs::last_write_time(out_.str("run/checkpoint.last.bin")), before);
  // The run has spent its budget (max_steps 5, from its stored config): resuming it changes nothing.
  ASSERT_EQ(run({"--resume"}, &err), 0) << err;
  EXPECT_NE(err.find("has finished"), std::string::npos) << err;
  EXPECT_EQ(fs::last_write_time(out_.str("run/checkpoint.last.bin")), before);
  EXPECT_EQ(read_file(out_.str("run/summary.json")), summary0);
  EXPECT_EQ(read_file(out_.str("run/command.txt")), commands0);
  // A setting that is not a budget key may not change on resume; the refusal names it and writes nothing.
  expect_error({"--resume", "--set", "model.cell.output=identity"}, "would change the run's model.cell.output");
  expect_error({"--resume", "--set", "train.batch_size=3"}, "would change the run's train.batch_size");
  EXPECT_EQ(read_file(out_.str("run/command.txt")), commands0);
  // Repeating a stored value is fine, and a budget key continues the run with its own settings (tanh output).
  ASSERT_EQ(run({"--resume", "--set", "model.cell.output=tanh", "--set", "train.max_steps=0"}, &err), 0) << err;
  const auto summary = nlohmann::json::parse(read_file(out_.str("run/summary.json")));
  EXPECT_EQ(summary["stop_reason"], "max_epochs");
  EXPECT_GT(summary["steps"].get<long>(), 5);
  const auto resolved = nlohmann::json::parse(read_file(out_.str("run/config.resolved.json")));
  EXPECT_EQ(resolved["model"]["cell"]["output"], "tanh");
  EXPECT_EQ(resolved["train"]["max_steps"], 0);
  ASSERT_EQ(run({"--eval-only"}, &err), 0) << err;
  EXPECT_TRUE(fs::exists(out_.str("run/eval.json")));
  // command.txt keeps every invocation that ran (the start, the continuing --resume with its --set lines, the
  // --eval-only; not the refused or finished ones). In-process the recorded command line is the test binary's.
  const std::string cmds = read_file(out_.str("run/command.txt"));
  size_t entries = 0;
  for (size_t at = cmds.find("# cwd:"); at != std::string::npos; at = cmds.find("# cwd:", at + 1)) ++entries;
  EXPECT_EQ(entries, 3u) << cmds;
  EXPECT_NE(cmds.find("# set: train.max_steps=0"), std::string::npos) << cmds;
}

// `lm score` (issue 29): a trained run scores new text one sentence at a time; batching sentences of equal
// length changes scores by float rounding only, the vocabulary is the run's vocab.txt (or rebuilt identically without it), words
// outside it are counted as <unk>, and bad input names the line.
TEST_F(LmCli, ScoreCommandScoresEachSentenceAlone) {
  std::string err;
  ASSERT_EQ(run({"--set", "train.max_steps=20"}, &err), 0) << err;
  ASSERT_TRUE(fs::exists(out_.str("run/vocab.txt")));
  std::vector<std::string> lines = read_lines(data_.str("test.txt"));
  ASSERT_GE(lines.size(), 5u);
  lines.push_back("");
  const Scorer s = Scorer::load(out_.str("run"));
  const auto one = s.score(lines, 1, "in.txt"), many = s.score(lines, 64, "in.txt");
  ASSERT_EQ(one.size(), lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    // Single precision: a batch of B sentences goes through [B, H] products, so only rounding may differ.
    EXPECT_NEAR(one[i].logprob, many[i].logprob, 1e-5 * std::fabs(one[i].logprob)) << "line " << i + 1;
    EXPECT_EQ(one[i].tokens, static_cast<long>(split_whitespace(lines[i]).size()) + 1);
    EXPECT_LT(one[i].logprob, 0.0);
    EXPECT_LT(std::exp(-one[i].logprob / one[i].tokens), static_cast<double>(s.vocab.size()) * 4);
  }
  EXPECT_EQ(one[0].unknown, 0);
  // The synthetic vocabulary has no <unk> (PTB's has): an unknown word is then an error naming line and word.
  ASSERT_LT(s.vocab.find("<unk>"), 0);
  EXPECT_PRED2(test::contains, test::error_of([&] { s.score({lines[0], "zzz_not_a_word"}, 4, "in.txt"); }),
               "in.txt:2: word 'zzz_not_a_word' is not in the vocabulary");
  EXPECT_EQ(one.back().tokens, 1);   // an empty line: <eos> alone
  fs::remove(out_.str("run/vocab.txt"));
  const auto rebuilt = Scorer::load(out_.str("run")).score(lines, 64, "in.txt");
  for (size_t i = 0; i < lines.size(); ++i) EXPECT_EQ(rebuilt[i].logprob, many[i].logprob) << "line " << i + 1;
  EXPECT_PRED2(test::contains, test::error_of([&] { s.score({lines[0], "a\xff"}, 4, "in.txt"); }),
               "in.txt:2: invalid UTF-8");
  EXPECT_PRED2(test::contains, test::error_of([&] { Scorer::load(data_.str()); }), "config.resolved.json");
}

TEST_F(LmCli, HelpAndVersionExitZero) {
  for (const char* flag : {"--help", "-h", "--version"}) {
    std::vector<std::string> args = {"lm", flag};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    ::testing::internal::CaptureStdout();
    const int rc = run_main<LmTask>(static_cast<int>(argv.size()), argv.data(), "lm");
    const std::string out = ::testing::internal::GetCapturedStdout();
    EXPECT_EQ(rc, 0) << flag;
    if (std::string(flag) == "--version") {
      EXPECT_NE(out.find("lm (twinrnn "), std::string::npos) << out;
      EXPECT_NE(out.find(", git "), std::string::npos) << out;
      EXPECT_NE(out.find("matrix products: Eigen"), std::string::npos) << out;
    } else {
      EXPECT_EQ(out.rfind("usage: lm <experiment.json>", 0), 0u) << out;
      for (const char* opt : {"--resume", "--seeds", "--dump-gates", "--print-keys", "experiments/KEYS.md"})
        EXPECT_NE(out.find(opt), std::string::npos) << opt << " missing from --help:\n" << out;
    }
  }
  EXPECT_FALSE(fs::exists(out_.str("run")));   // neither touches a run folder
}

TEST_F(LmCli, PrintConfigPrintsTheResolvedExperimentAndWritesNothing) {
  std::vector<std::string> args = {"lm", cfg_.str("exp.json"), "--print-config", "--set", "train.optim.lr=0.5",
                                   "--seed", "3"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  ::testing::internal::CaptureStderr();
  ::testing::internal::CaptureStdout();
  const int rc = run_main<LmTask>(static_cast<int>(argv.size()), argv.data(), "lm");
  const std::string out = ::testing::internal::GetCapturedStdout();
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(rc, 0) << err;
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["train"]["optim"]["lr"], 0.5);                 // --set applied
  EXPECT_EQ(j["seed"], 3);                                   // --seed applied
  EXPECT_EQ(j["out_dir"], out_.str("run") + "_s3");
  EXPECT_EQ(j["model"]["cell"]["layer_norm"], false);        // a key the experiment file never names: its default
  EXPECT_TRUE(j["train"].contains("patience"));
  EXPECT_FALSE(fs::exists(out_.str("run_s3")));               // nothing written
  EXPECT_FALSE(fs::exists(out_.str("run")));
}

TEST_F(LmCli, ResumeKeepsTheStoredSettingsWhenTheExperimentFileChanged) {
  std::string err;
  ASSERT_EQ(run({"--set", "train.max_steps=3"}, &err), 0) << err;
  config_["train"]["optim"]["lr"] = 0.5;   // the file is edited after the run started
  config_["model"]["cell"]["output"] = "tanh";
  std::ofstream(cfg_.str("exp.json")) << config_.dump(2);
  ASSERT_EQ(run({"--resume", "--set", "train.max_steps=6"}, &err), 0) << err;
  EXPECT_NE(err.find("now differ at: "), std::string::npos) << err;
  EXPECT_NE(err.find("model.cell.output"), std::string::npos) << err;
  const auto resolved = nlohmann::json::parse(read_file(out_.str("run/config.resolved.json")));
  EXPECT_EQ(resolved["model"]["cell"]["output"], "default");
  EXPECT_DOUBLE_EQ(resolved["train"]["optim"]["lr"].get<double>(), 0.01);   // the smoke recipe's, as stored
  EXPECT_EQ(resolved["train"]["max_steps"], 6);
}

TEST(LmGates, PearsonROnHandComputedSeries) {
  EXPECT_NEAR(pearson_r({1, 2, 3}, {2, 4, 6}), 1.0, 1e-12);
  EXPECT_NEAR(pearson_r({1, 2, 3}, {3, 2, 1}), -1.0, 1e-12);
  // a = (1,2,3,4), b = (1,3,2,4): cov = 4, var_a = var_b = 5 (sums of squared deviations) -> r = 0.8
  EXPECT_NEAR(pearson_r({1, 2, 3, 4}, {1, 3, 2, 4}), 0.8, 1e-12);
  EXPECT_THROW(pearson_r({1}, {1}), Error);
}

TEST_F(LmCli, DumpGatesWritesPerPositionMeansAndDependencies) {
  std::string err;
  ASSERT_EQ(run({"--set", "train.max_steps=5", "--dump-gates", "3"}, &err), 0) << err;
  std::ifstream in(out_.str("run/gates.json"));
  ASSERT_TRUE(in.good());
  auto g = nlohmann::json::parse(in);
  EXPECT_EQ(g["cell"], "atr");
  EXPECT_EQ(g["pair"], nlohmann::json({"i", "f"}));
  const auto i = g["mean"]["i"].get<std::vector<double>>(), f = g["mean"]["f"].get<std::vector<double>>();
  ASSERT_EQ(i.size(), g["count"].size());
  ASSERT_GE(i.size(), 4u);   // synthetic sentences have 4+ words plus <eos>
  for (size_t t = 0; t < i.size(); ++t) EXPECT_TRUE(i[t] > 0 && i[t] < 1 && f[t] > 0 && f[t] < 1);
  EXPECT_EQ(g["count"][0].get<double>(), g["sentences"].get<double>());   // every sentence has a position 0
  EXPECT_LE(std::abs(g["pearson_r_units"].get<double>()), 1.0);
  ASSERT_EQ(g["dependencies"].size(), 3u);
  const auto& d0 = g["dependencies"][0];
  const size_t len = d0["tokens"].size();
  ASSERT_EQ(d0["weights"].size(), len);
  EXPECT_EQ(d0["tokens"].back(), "<eos>");
  for (size_t t = 0; t < len; ++t)
    for (size_t k = t + 1; k < len; ++k) EXPECT_EQ(d0["weights"][t][k].get<double>(), 0.0);   // no future words
  std::string err2;
  EXPECT_EQ(run({"--resume", "--dump-gates", "x"}, &err2), 2);
  EXPECT_NE(err2.find("--dump-gates"), std::string::npos) << err2;
}

}  // namespace
}  // namespace twin::lm
