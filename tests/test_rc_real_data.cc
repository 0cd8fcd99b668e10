// Reading-comprehension data on the prepared SQuAD (data/squad/, RAW_DATA=../shared/data python3
// data_prep/squad.py; skipped with the reason when absent): the splits read with R-Net's limits, counted as
// prep.json says; every aligned dev answer's token span gives back its text (EM 1); the gold spans as
// predictions scored in memory, through the written prediction file and against the official dev-v1.1.json
// (when $RAW_DATA/squad holds it) to the same bits; the vocabularies from train and the GloVe subset; the C++
// tokeniser of `rc predict` equal to squad.py's on every paragraph and question; the smoke experiment on a slice,
// trained and resumed through the binary's run_main.
// RC_GOLD_PREDICTIONS=FILE keeps the gold-span prediction file, for tools/squad_eval.py.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "base/file_io.h"

#include "rc_data.h"
#include "rc_predictions.h"
#include "rc_task.h"
#include "rc_tokenize.h"
#include "smoke_run.h"
#include "rc_vocab.h"
#include "test_util.h"

namespace twin::rc {
namespace {

namespace fs = std::filesystem;
using namespace twin::test;

const std::string kDir = std::string(TW_SOURCE_DIR) + "/data/squad";

nlohmann::json prep_json() { return nlohmann::json::parse(std::ifstream(kDir + "/prep.json")); }

RcDataConfig squad_config() {
  RcDataConfig c;
  c.dir = kDir;
  c.protocol = "SQuAD";
  return c;
}

std::string strip_spaces(const std::string& s) {   // Python's str.strip() on the explorer's ASCII spaces
  const auto b = s.find_first_not_of(" \t\n");
  return b == std::string::npos ? "" : s.substr(b, s.find_last_not_of(" \t\n") - b + 1);
}

TEST(RcRealData, DevGoldSpansGiveTheirAnswersBackAndScoreAsTheOfficialFile) {
  if (!fs::exists(kDir + "/prep.json"))
    GTEST_SKIP() << "no " << kDir << "/prep.json (run RAW_DATA=../shared/data python3 data_prep/squad.py)";
  const nlohmann::json want = prep_json()["splits"]["dev"];
  const RcSplit dev = read_split(squad_config(), "dev", false);
  EXPECT_EQ(static_cast<long>(dev.questions.size()), want["questions"].get<long>());
  EXPECT_EQ(dev.examples.size(), dev.questions.size());   // no dev passage over 1000 tokens (max 708)
  long answers = 0, aligned = 0, not_aligned_em = 0, gold_em = 0;
  Predictions gold;
  for (const RcExample& e : dev.examples) {
    for (const RcAnswer& a : e.answers) {
      ++answers;
      const std::string text = answer_text(*e.paragraph, a.first, a.last);
      bool em = false;
      for (const RcAnswer& g : e.answers) em = em || squad_exact_match(text, g.text);
      if (a.aligned) {
        ++aligned;
        EXPECT_EQ(text, strip_spaces(a.text)) << e.id;
        EXPECT_TRUE(em) << e.id << ": '" << text << "'";
      } else {
        not_aligned_em += em;
      }
    }
    gold[e.id] = answer_text(*e.paragraph, e.answers[0].first, e.answers[0].last);
    bool em = false;
    for (const RcAnswer& g : e.answers) em = em || squad_exact_match(gold[e.id], g.text);
    gold_em += em;
  }
  EXPECT_EQ(answers, want["answers"].get<long>());
  EXPECT_EQ(answers - aligned, want["not_aligned"].get<long>());
  const SquadScore mem = score_predictions(dev, gold);
  EXPECT_EQ(mem.answered, mem.total);
  EXPECT_DOUBLE_EQ(mem.exact_match, 100.0 * static_cast<double>(gold_em) / static_cast<double>(mem.total));
  std::printf("rc dev: %ld answers, %ld aligned (EM 1 each), %ld not aligned of which %ld still EM 1; gold spans as "
              "predictions: EM %.17g F1 %.17g over %ld questions\n", answers, aligned, answers - aligned,
              not_aligned_em, mem.exact_match, mem.f1, mem.total);
  TempDir d("rc");
  const char* keep = std::getenv("RC_GOLD_PREDICTIONS");
  const std::string file = keep ? std::string(keep) : d.file("dev.json");
  write_predictions(file, gold);
  const SquadScore from_file = score_prediction_file(dev, file);
  EXPECT_EQ(from_file.exact_match, mem.exact_match);   // bit for bit
  EXPECT_EQ(from_file.f1, mem.f1);
  const char* raw_env = std::getenv("RAW_DATA");
  const std::string raw = (raw_env ? std::string(raw_env) : std::string(TW_SOURCE_DIR) + "/../shared/data") +
                          "/squad/dev-v1.1.json.gz";
  if (!fs::exists(raw)) {
    std::printf("rc dev: no %s: the official file's score not compared\n", raw.c_str());
    return;
  }
  const SquadScore official = squad_score_files(raw, file);   // the dataset as evaluate-v1.1.py reads it
  EXPECT_EQ(official.total, mem.total);
  EXPECT_EQ(official.exact_match, mem.exact_match);
  EXPECT_EQ(official.f1, mem.f1);
  EXPECT_TRUE(official.missing.empty() && official.unknown.empty()) << prediction_report(file, official);
}

TEST(RcRealData, TrainReadWithTheTrainingLimitsAndTheVocabularies) {
  if (!fs::exists(kDir + "/prep.json"))
    GTEST_SKIP() << "no " << kDir << "/prep.json (run RAW_DATA=../shared/data python3 data_prep/squad.py)";
  const nlohmann::json prep = prep_json();
  RcSplit train = read_split(squad_config(), "train", true);
  const long questions = prep["splits"]["train"]["questions"].get<long>();
  EXPECT_EQ(static_cast<long>(train.questions.size()), questions);
  EXPECT_EQ(static_cast<long>(train.examples.size()) + train.dropped_passage + train.dropped_question, questions);
  EXPECT_GT(train.dropped_passage, 0);   // prep.json: 55 training contexts over 400 tokens
  EXPECT_LE(train.dropped_question, prep["splits"]["train"]["questions_over_50_tokens"].get<long>());
  for (const RcExample& e : train.examples) {
    ASSERT_LE(e.paragraph->passage.size(), 400) << e.id;
    ASSERT_LE(e.question.size(), 50) << e.id;
  }
  RcDataConfig c = squad_config();
  c.embeddings = kDir + "/glove.6B.100d.txt";
  const RcVocabs v = build_vocabs(train.examples, c);
  const int vectors = nlohmann::json::parse(std::ifstream(kDir + "/glove.json"))["vectors_written"].get<int>();
  EXPECT_EQ(v.words.size(), 2 + vectors);   // <pad>, <unk> and the subset's words
  encode(train.examples, v);
  long tokens = 0, unk = 0;
  for (const RcExample& e : train.examples)
    for (const Ids* ids : std::initializer_list<const Ids*>{&e.paragraph->passage.words, &e.question.words})
      for (int id : *ids) {
        ++tokens;
        unk += id == kUnkId;
      }
  std::printf("rc train: %zu of %ld questions kept (%ld over 400 passage tokens, %ld over 50 question tokens); "
              "vocabulary %d words, %d characters; <unk> %.2f %% of the tokens (passages counted per question)\n",
              train.examples.size(), questions, train.dropped_passage, train.dropped_question, v.words.size(),
              v.chars.size(), 100.0 * static_cast<double>(unk) / static_cast<double>(tokens));
  EXPECT_LT(unk, tokens / 10);   // squad.py: lowercased GloVe coverage 94.3 % of train tokens
}

// experiments/smoke/rc_atr.json on the prepared SQuAD: the first 64 training questions, 24 of heldout and dev,
// trained through the binary's run_main for 2 epochs, then continued with --resume for a third; both splits scored
// over their 24 questions and kept in the official format.
TEST(RcRealData, SmokeExperimentTrainsOnASliceAndResumes) {
  if (!fs::exists(kDir + "/prep.json"))
    GTEST_SKIP() << "no " << kDir << "/prep.json (run RAW_DATA=../shared/data python3 data_prep/squad.py)";
  TempDir run("rc_run"), io("rc_io");
  std::ofstream(io.file("exp.json")) << twin::test::smoke_config("rc_atr.json", kDir, run.str()).dump(2);
  const twin::test::CliResult first = twin::test::run_task<RcTask>("rc", io.file("exp.json"));
  ASSERT_EQ(first.code, 0) << first.err;
  const twin::test::CliResult more =
      twin::test::run_task<RcTask>("rc", io.file("exp.json"), {"--resume", "--set", "train.max_epochs=3"});
  ASSERT_EQ(more.code, 0) << more.err;
  const nlohmann::json summary = nlohmann::json::parse(read_file(run.file("summary.json")));
  EXPECT_EQ(summary["epochs_done"], 3);
  EXPECT_EQ(summary["questions"]["train"], 64);   // none of the first 64 over the limits
  for (const char* split : {"dev", "test"}) {
    EXPECT_EQ(summary[split]["total"], 24) << split;
    EXPECT_EQ(summary[split]["answered"], 24) << split;
  }
  const Predictions dev = read_predictions(run.file("predictions/dev.json"));
  ASSERT_EQ(dev.size(), 24u);
  RcDataConfig c = squad_config();
  c.max_eval_questions = 24;
  const SquadScore again = score_predictions(read_split(c, "dev", false), dev);
  EXPECT_EQ(again.f1, summary["test"]["f1"].get<double>());
  std::printf("rc smoke on SQuAD: heldout F1 %.2f, dev F1 %.2f after 3 epochs of 64 questions\n",
              summary["dev"]["f1"].get<double>(), summary["test"]["f1"].get<double>());
}

// `rc predict` tokenises raw text in C++ (rc_tokenize.h): on every paragraph and question of the three prepared
// splits it must give squad.py's tokens and byte offsets, or a question of one's own would be read otherwise
// than the training data.
TEST(RcRealData, TheCxxTokeniserGivesSquadPysTokensOnEverySplit) {
  if (!fs::exists(kDir + "/prep.json"))
    GTEST_SKIP() << "no " << kDir << "/prep.json (run RAW_DATA=../shared/data python3 data_prep/squad.py)";
  long paragraphs = 0, questions = 0, differ = 0;
  for (const char* split : {"train", "heldout", "dev"}) {
    std::ifstream in(kDir + "/" + split + ".jsonl");
    for (std::string line; std::getline(in, line);) {
      const nlohmann::json p = nlohmann::json::parse(line);
      const Tokens t = squad_tokenize(p["context"].get<std::string>());
      std::vector<std::vector<int>> offsets;
      for (const ByteSpan& b : t.offsets) offsets.push_back({b.begin, b.end});
      ++paragraphs;
      using Strings = std::vector<std::string>;
      if (t.tokens != p["tokens"].get<Strings>() || offsets != p["offsets"].get<std::vector<std::vector<int>>>())
        if (++differ <= 5) ADD_FAILURE() << split << ": paragraph '" << p["context"].get<std::string>().substr(0, 80);
      for (const nlohmann::json& q : p["qas"]) {
        ++questions;
        if (squad_tokenize(q["question"].get<std::string>()).tokens != q["question_tokens"].get<Strings>())
          if (++differ <= 5) ADD_FAILURE() << split << ": question " << q["id"];
      }
    }
  }
  std::printf("rc tokeniser: %ld paragraphs and %ld questions of train, heldout and dev; %ld tokenised otherwise "
              "than squad.py\n", paragraphs, questions, differ);
  EXPECT_EQ(differ, 0);
  EXPECT_GT(questions, 90000);
}

}  // namespace
}  // namespace twin::rc
