// CWS task: reading prepared data and its errors (named by file and line), batching, and smoke runs on the
// generated lexicon corpus: the max-margin model must learn to segment it (dev F1), the CRF log-likelihood
// objective must train too, constrained decoding must only produce BMES-legal tag sequences, and the run
// must write its segmentations in the bakeoff format.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/threads.h"
#include "bmes.h"
#include "cws_data.h"
#include "cws_synthetic.h"
#include "cws_segment.h"
#include "cws_task.h"
#include "data/text.h"
#include "smoke_run.h"
#include "test_util.h"
#include "train/checkpoint.h"

namespace twin::cws {
namespace {

namespace fs = std::filesystem;
using namespace twin::test;   // the test helpers of test_util.h

TEST(CwsData, ReadsSegAndTagsTogether) {
  TempDir d("cws");
  write_file(d.str() + "/train.seg", "我 爱 北京\r\n天安门 。\n");
  write_file(d.str() + "/train.bmes", "SSBE\r\nBMES\n");
  const auto s = read_split(data_config_in<CwsDataConfig>(d.str()), "train");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].chars, (std::vector<std::string>{"我", "爱", "北", "京"}));
  EXPECT_EQ(s[0].tags, (std::vector<int>{kS, kS, kB, kE}));
  EXPECT_EQ(s[1].words, (std::vector<std::string>{"天安门", "。"}));
}

TEST(CwsData, BadFilesAreErrorsNamingFileAndLine) {
  TempDir d("cws");
  const CwsDataConfig c = data_config_in<CwsDataConfig>(d.str());
  auto expect = [&](const std::string& seg, const std::string& tags, const std::string& what) {
    write_file(d.str() + "/train.seg", seg);
    write_file(d.str() + "/train.bmes", tags);
    const std::string e = error_of([&] { read_split(c, "train"); });
    EXPECT_TRUE(contains(e, what)) << "expected '" << what << "' in: " << e;
  };
  expect("我 爱\n北京\n", "SS\nBEE\n", "train.bmes:2: 3 tags for the 2 characters");
  expect("我 爱\n北京\n", "SS\nBX\n", "train.bmes:2: tag 'X'");
  expect("我 爱\n北京\n", "SS\nSS\n", "train.bmes:2: the tags do not describe the words");
  expect("我 爱\n北京\n", "SS\n", "1 lines, but");
  expect("我 爱\n   \n", "SS\n\n", "train.seg:2: empty sentence");
  expect("我 爱\n北\xE4\xBA", "SS\nSS\n", "train.seg:2: invalid UTF-8 at byte");
  fs::remove(d.str() + "/train.bmes");
  const std::string e = error_of([&] { read_split(c, "train"); });
  EXPECT_TRUE(contains(e, "train.bmes not found") && contains(e, "data_prep/cws.py")) << e;
}

TEST(CwsData, BatchesCoverEverySentenceOnceWithGoldTags) {
  TempDir d("cws");
  write_synthetic_cws(d.str(), 3, 50, 5, 5);
  CwsDataConfig c = data_config_in<CwsDataConfig>(d.str());
  c.bigrams = true;
  const auto train = read_split(c, "train");
  const CwsVocab v = build_vocab(train, c);
  Rng rng(1);
  std::vector<int> seen(train.size(), 0);
  for (const auto& idx : batches_by_length(train, sentence_length,
      {.batch_size = 8, .maxi_batch = 2, .shuffle = true}, rng)) {
    const CwsBatch b = make_batch(train, idx, v, true);
    ASSERT_EQ(b.gold.size(), idx.size());
    EXPECT_EQ(static_cast<Index>(b.bigram_flat.size()), b.chars.steps() * b.chars.size());
    for (size_t k = 0; k < idx.size(); ++k) {
      ++seen[static_cast<size_t>(idx[k])];
      EXPECT_EQ(b.gold[k], train[static_cast<size_t>(idx[k])].tags);
      EXPECT_EQ(b.chars.lengths[k], static_cast<int>(b.gold[k].size()));
    }
  }
  for (int n : seen) EXPECT_EQ(n, 1);
}

// A smoke run of the whole task on the generated corpus (seconds).
struct Smoke {
  TempDir data{"cws_data"}, run{"cws_run"};
  std::unique_ptr<CwsTask> task;
  TrainOutcome out;
  explicit Smoke(const std::string& objective, bool constrain = false) {
    write_synthetic_cws(data.str(), 11);
    nlohmann::json config = test::smoke_config("cws_atr.json", data.str(), run.str());
    config["model"]["objective"] = objective;
    config["model"]["constrain"] = constrain;
    auto r = test::train_smoke<CwsTask>(config, "smoke/cws_atr.json", run.str());
    task = std::move(r.task);
    out = std::move(r.out);
  }
};

TEST(CwsSmoke, MaxMarginTrainingLearnsToSegment) {
  Smoke s("hinge");
  ASSERT_EQ(s.out.stop_reason, StopReason::kMaxEpochs);
  EXPECT_LT(test::tail_mean_loss(s.out.losses), s.out.losses.front() / 4) << "training loss did not drop";
  EXPECT_GE(s.out.best.primary, 0.95) << "dev F1 of the smoke model";
  const Metrics test = s.task->evaluate(Split::kTest);
  EXPECT_GE(test.primary, 0.95);
  for (const char* k : {"precision", "recall", "f1", "oov_rate", "oov_recall", "iv_recall"})
    EXPECT_TRUE(test.values.contains(k)) << k;
  nlohmann::json summary;
  s.task->finish(s.run.str(), summary);
  const auto lines = read_lines(s.run.str() + "/segmented/test.utf8");
  EXPECT_EQ(lines.size(), 100u);
  EXPECT_TRUE(summary["segmentation"].contains("test"));
}

// `cws segment` (issue 29): the trained model loaded from its run folder segments raw text exactly as the
// run segmented its test split, whitespace in the input is ignored, empty lines stay empty, and a run that
// predates vocab.chars.txt rebuilds the same vocabulary from its training split.
TEST(CwsSmoke, SegmentCommandReproducesTheRunsSegmentation) {
  Smoke s("hinge");
  load_params(s.run.str() + "/model.best.bin", s.task->params(), LoadMode::kStrict);
  s.task->evaluate(Split::kTest);
  nlohmann::json summary;
  s.task->finish(s.run.str(), summary);
  ASSERT_TRUE(std::filesystem::exists(s.run.str() + "/vocab.chars.txt"));
  std::ofstream(s.run.str() + "/config.resolved.json") << s.task->resolved().dump();
  const std::vector<std::string> expected = read_lines(s.run.str() + "/segmented/test.utf8");
  std::vector<std::string> raw;
  for (const Sentence& x : s.task->test_data()) {
    std::string line;
    for (size_t k = 0; k < x.chars.size(); ++k) line += (k % 3 == 1 ? " " : "") + x.chars[k];   // stray spaces
    raw.push_back(line);
  }
  raw.push_back("");
  for (bool keep_vocab : {true, false}) {
    if (!keep_vocab) std::filesystem::remove(s.run.str() + "/vocab.chars.txt");
    const Segmenter seg = Segmenter::load(s.run.str());
    const auto words = seg.segment(raw, eval_batching(7), "raw.txt");
    ASSERT_EQ(words.size(), expected.size() + 1);
    for (size_t i = 0; i < expected.size(); ++i) {
      std::string line;
      for (size_t k = 0; k < words[i].size(); ++k) line += (k ? "  " : "") + words[i][k];
      EXPECT_EQ(line, expected[i]) << "line " << i + 1 << (keep_vocab ? "" : " (vocabulary rebuilt)");
    }
    EXPECT_TRUE(words.back().empty());
  }
  EXPECT_PRED2(test::contains,
               test::error_of([&] { Segmenter::load(s.run.str()).segment({"ab\xff"}, eval_batching(4), "in.txt"); }),
               "in.txt:1: invalid UTF-8");
  EXPECT_PRED2(test::contains, test::error_of([&] { Segmenter::load(s.data.str()); }), "config.resolved.json");
}

TEST(CwsSmoke, CrfLikelihoodObjectiveTrainsToo) {
  Smoke s("nll");
  EXPECT_LT(test::tail_mean_loss(s.out.losses), s.out.losses.front() / 4);
  EXPECT_GE(s.out.best.primary, 0.9);
}

// Decoding an untrained model with large random weights: unconstrained Viterbi produces illegal BMES
// sequences (so the check below can fail), constrained Viterbi never does.
TEST(CwsModel, ConstrainedDecodingOnlyProducesLegalTagSequences) {
  TempDir d("cws");
  write_synthetic_cws(d.str(), 5, 60, 5, 5);
  const CwsDataConfig c = data_config_in<CwsDataConfig>(d.str());
  const auto train = read_split(c, "train");
  const CwsVocab v = build_vocab(train, c);
  const auto idx = eval_batches(train, sentence_length, 64);
  const Mat allowed = bmes_allowed_transitions(), start = bmes_allowed_start(), end = bmes_allowed_end();
  auto illegal = [&](const std::vector<int>& t) {
    int n = (start(0, t.front()) == 0) + (end(0, t.back()) == 0);
    for (size_t i = 1; i < t.size(); ++i) n += allowed(t[i - 1], t[i]) == 0;
    return n;
  };
  for (bool constrain : {false, true}) {
    CwsModelConfig mc;
    mc.embed = 16;
    mc.cell.type = "atr";
    mc.cell.hidden = 8;
    mc.cell.init_scale = 1.0;
    mc.init_scale = 1.0;
    mc.constrain = constrain;
    ParamStore store(3);
    CwsModel model(mc, v.chars.size(), 0, store);
    int bad = 0;
    for (const auto& i : idx)
      for (const auto& tags : model.decode(make_batch(train, i, v, false))) bad += illegal(tags);
    if (constrain) EXPECT_EQ(bad, 0);
    else EXPECT_GT(bad, 0) << "random weights gave only legal sequences: the constrained check proves nothing";
  }
}

}  // namespace
}  // namespace twin::cws
