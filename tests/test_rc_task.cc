// The rc task's face (issue 53) on generated SQuAD (tests/synthetic/rc_synthetic.h): training and evaluation
// through the binary's run_main, whose kept predictions score under the official metric (squad_score_files, the
// evaluate-v1.1.py algorithm) exactly as summary.json says; `rc predict` on the official-layout dev file giving
// the run's dev predictions again, and its bad inputs; squad.py's tokeniser in C++; the config's checks. A run
// killed with SIGKILL and resumed: tests/test_rc_resume.cc. The prepared SQuAD: tests/test_rc_real_data.cc.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "base/file_io.h"
#include "data/text.h"
#include "eval/squad_eval.h"
#include "rc_synthetic.h"
#include "rc_task.h"
#include "rc_tokenize.h"
#include "smoke_run.h"
#include "test_util.h"

namespace twin::rc {
namespace {

namespace fs = std::filesystem;
using twin::test::contains;
using twin::test::data_config_in;
using twin::test::error_of;
using twin::test::TempDir;
using nlohmann::json;

json parse_file(const std::string& path) { return json::parse(read_file(path)); }

// experiments/smoke/rc_atr.json on the whole generated data, with its vectors fixed (the experiments' setting), and
// a model that learns the task within seconds: a GRU of 16, no dropout, Adam (the smoke file's ATR of 8 with
// Adadelta, made to check the plumbing, reaches about 45 F1 in 12 epochs; this one test F1 100 in 30, measured).
json rc_config(const TempDir& data, const std::string& run, int epochs) {
  json c = twin::test::smoke_config("rc_atr.json", data.str(), run);
  c["data"]["embeddings"] = data.file("glove.txt");
  c["data"]["max_train_questions"] = 0;
  c["data"]["max_eval_questions"] = 0;
  c["model"]["word_dim"] = 6;
  c["model"]["freeze_words"] = true;
  c["model"]["cell"] = {{"type", "gru"}, {"hidden", 16}};
  c["model"]["dropout"] = 0.0;
  c["model"]["ptr_dropout"] = 0.0;
  c["train"]["max_epochs"] = epochs;
  c["train"]["optim"] = {{"name", "adam"}, {"lr", 0.003}, {"clip_norm", 5.0}};
  return c;
}

twin::test::CliResult predict(const std::vector<std::string>& args) {
  std::vector<std::string> a = {"predict"};
  a.insert(a.end(), args.begin(), args.end());
  return twin::test::run_predict_mode("rc predict", predict_main, a);
}

// Training through the command line keeps both splits' predictions in the official format, named after their data
// files and listed in summary.json; scored by the official algorithm against the official-layout dev file they give
// summary.json's numbers exactly. The loss falls and the model answers far above chance. `rc predict` on that dev
// file writes the run's predictions/dev.json byte for byte (from stdin too); bad input is exit 2 naming the item.
TEST(RcCli, TrainsKeepsOfficialPredictionsAndPredictGivesThemAgain) {
  TempDir data("rc_data"), run("rc_run"), io("rc_io");
  write_synthetic_squad(data.str(), 11);
  std::ofstream(io.file("exp.json")) << rc_config(data, run.str(), 30).dump(2);
  const twin::test::CliResult trained = twin::test::run_task<RcTask>("rc", io.file("exp.json"));
  ASSERT_EQ(trained.code, 0) << trained.err;
  const json summary = parse_file(run.file("summary.json"));
  EXPECT_EQ(summary["predictions"], json({{"dev", "predictions/heldout.json"}, {"test", "predictions/dev.json"}}));
  EXPECT_EQ(summary["splits"], json({{"dev", "heldout"}, {"test", "dev"}}));
  EXPECT_EQ(summary["trainable_params"].get<long>() + 16 * 6, summary["params"].get<long>()) << "16 fixed vectors";
  const SquadScore official = squad_score_files(data.file("dev.json"), run.file("predictions/dev.json"));
  EXPECT_EQ(official.answered, official.total);
  EXPECT_EQ(official.exact_match, summary["test"]["exact_match"].get<double>());
  EXPECT_EQ(official.f1, summary["test"]["f1"].get<double>());
  EXPECT_EQ(summary["test"]["total"], official.total);
  // Chance: one of the passage's 8 to 16 tokens.
  EXPECT_GT(summary["test"]["f1"].get<double>(), 80.0) << summary.dump(1);
  std::vector<double> losses;
  std::ifstream m(run.file("metrics.jsonl"));
  for (std::string l; std::getline(m, l);)
    if (json r = json::parse(l); r["split"] == "train") losses.push_back(r["loss"].get<double>());
  ASSERT_GT(losses.size(), 20u);
  EXPECT_LT(twin::test::tail_mean_loss(losses, 10), 0.25 * losses.front()) << "first " << losses.front();

  const twin::test::CliResult p =
      predict({run.str(), "--input", data.file("dev.json"), "--output", io.file("out.json")});
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_EQ(read_file(io.file("out.json")), read_file(run.file("predictions/dev.json")));
  EXPECT_PRED2(contains, p.err, "rc predict: " + std::to_string(official.total) + " answers, " + io.file("out.json"));

  // Bad input: one line naming the input and the item, exit 2, nothing written.
  auto expect_refused = [&](const std::string& name, const std::string& text, const std::string& what) {
    const std::string in = io.write(name, text);
    const twin::test::CliResult r = predict({run.str(), "--input", in, "--output", io.file("bad_out.json")});
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_PRED2(contains, r.err, "rc predict: error: " + in + what);
    EXPECT_FALSE(fs::exists(io.file("bad_out.json")));
  };
  expect_refused("not.json", "{\"data\": [", ": not JSON");
  expect_refused("flat.json", R"({"paragraphs": []})", ": the top level: no 'data'");
  expect_refused("noq.json", R"({"data": [{"paragraphs": [{"context": "Ann met Bob.", "qas": [{"id": "a"}]}]}]})",
                 ": data[0].paragraphs[0].qas[0]: no 'question'");
  expect_refused("intid.json", R"({"data": [{"paragraphs": [{"context": "x", "qas": [{"id": 3, "question": "y"}]}]}]})",
                 ": data[0].paragraphs[0].qas[0]: 'id' is a JSON number, expected a string");
  expect_refused("empty.json", R"({"data": [{"paragraphs": [{"context": "  ", "qas": []}]}]})",
                 ": data[0].paragraphs[0]: the context has no token");
  expect_refused("dup.json", R"({"data": [{"paragraphs": [{"context": "Ann met Bob.", "qas": [)"
                             R"({"id": "a", "question": "Who?"}, {"id": "a", "question": "Whom?"}]}]}]})",
                 ": data[0].paragraphs[0].qas[1]: id 'a' again (first at ");
  const twin::test::CliResult gone = predict({io.str("no_run"), "--input", data.file("dev.json")});
  EXPECT_EQ(gone.code, 2);
  EXPECT_PRED2(contains, gone.err, "rc predict: error: ");
  EXPECT_PRED2(contains, gone.err, "no_run");
}

// A question of one's own (README, "Reading comprehension"): any id, no answers, text that never went through
// data_prep; the answer is a span of the context, cut at token bounds.
TEST(RcCli, AnswersAQuestionOfOnesOwnWithASpanOfTheContext) {
  TempDir data("rc_data"), run("rc_run"), io("rc_io");
  write_synthetic_squad(data.str(), 12);
  std::ofstream(io.file("exp.json")) << rc_config(data, run.str(), 30).dump(2);
  ASSERT_EQ(twin::test::run_task<RcTask>("rc", io.file("exp.json")).code, 0);
  const std::string in = io.write("mine.json", R"({"data": [{"title": "mine", "paragraphs": [{"context":
      "Dora paid Carl. Zoë helped Eve.", "qas": [{"id": "q1", "question": "Who helped Eve?"}]}]}]})");
  const twin::test::CliResult r = predict({run.str(), "--input", in, "--batch", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json out = json::parse(r.out);
  ASSERT_EQ(out.size(), 1u);
  const std::string answer = out["q1"].get<std::string>();
  EXPECT_TRUE(contains("Dora paid Carl. Zoë helped Eve.", answer) && !answer.empty()) << answer;
  EXPECT_EQ(answer, "Zoë") << "the model trained on this pattern answers it";
}

// data_prep/squad.py's rule: runs of word characters (no '_'), any other non-space character alone, byte offsets.
TEST(RcTokenize, SplitsAsSquadPyDoes) {
  const Tokens t = squad_tokenize("Levi's 24\u201310 U.S.\u00a0caf\u00e9_x \t(1)");
  EXPECT_EQ(t.tokens, (std::vector<std::string>{"Levi", "'", "s", "24", "\u2013", "10", "U", ".", "S", ".",
                                                 "caf\u00e9", "_", "x", "(", "1", ")"}));
  ASSERT_EQ(t.offsets.size(), t.tokens.size());
  EXPECT_EQ(t.offsets[4].begin, 9);   // "Levi's 24" is 9 bytes; the en dash 3
  EXPECT_EQ(t.offsets[4].end, 12);
  EXPECT_EQ(t.offsets[10].begin, 21);   // after "U.S." and the 2-byte no-break space
  EXPECT_EQ(t.offsets[10].end, 26);
  EXPECT_TRUE(squad_tokenize(" \u3000\n").tokens.empty());
}

// max_*_questions keep a file's first questions (scored over those alone); frozen vectors need a vectors file.
TEST(RcConfig, SliceKeysAndFrozenWordsWithoutVectors) {
  TempDir data("rc_data");
  write_synthetic_squad(data.str(), 13, 10, 3);
  RcDataConfig c = data_config_in<RcDataConfig>(data.str());
  c.max_eval_questions = 2;
  const RcSplit dev = read_split(c, "dev", false);
  EXPECT_EQ(dev.questions.size(), 2u);
  EXPECT_EQ(dev.examples.size(), 2u);
  EXPECT_EQ(dev.examples[1].id, dev.questions[1].id);
  EXPECT_PRED2(contains, dev.summary(), "2 questions (the first: data.max_*_questions; the rest of the file not read)");
  const RcSplit whole = read_split(c, "dev", true);   // training's slice key, 0: the whole file
  EXPECT_GT(whole.questions.size(), 2u);
  ParamStore store;
  RcModelConfig m;
  EXPECT_PRED2(contains, error_of([&] { RcParts::make(m, c, RcVocabs{}, store); }),
               "model.freeze_words is true but data.embeddings is \"\"");
}

}  // namespace
}  // namespace twin::rc
