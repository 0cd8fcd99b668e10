// PTB language-model task: batchify/windows on hand-made streams, perplexity on a hand-computed case,
// golden smoke losses, exact resume with the carried state, the real PTB reader (the command line: test_lm_cli.cc).
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
#include "smoke_run.h"
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
  SmokeRun s = run_smoke(test::smoke_config("lm_atr.json", data.str(), out.str()), out.str(), 0, false);
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
  SmokeRun straight = run_smoke(test::smoke_config("lm_atr.json", data.str(), a.str()), a.str(), 0, false);
  SmokeRun part1 = run_smoke(test::smoke_config("lm_atr.json", data.str(), b.str()), b.str(), 7, false);
  SmokeRun part2 = run_smoke(test::smoke_config("lm_atr.json", data.str(), b.str()), b.str(), 0, true);
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
    nlohmann::json j = test::smoke_config("lm_atr.json", data.str(), out.str());
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

TEST(LmGates, PearsonROnHandComputedSeries) {
  EXPECT_NEAR(pearson_r({1, 2, 3}, {2, 4, 6}), 1.0, 1e-12);
  EXPECT_NEAR(pearson_r({1, 2, 3}, {3, 2, 1}), -1.0, 1e-12);
  // a = (1,2,3,4), b = (1,3,2,4): cov = 4, var_a = var_b = 5 (sums of squared deviations) -> r = 0.8
  EXPECT_NEAR(pearson_r({1, 2, 3, 4}, {1, 3, 2, 4}), 0.8, 1e-12);
  EXPECT_THROW(pearson_r({1}, {1}), Error);
}

}  // namespace
}  // namespace twin::lm
