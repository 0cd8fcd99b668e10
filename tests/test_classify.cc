// Sentence classification task: a smoke run on the generated corpus (tests/synthetic/classify_synthetic.h: the
// label is the majority polarity of 1, 3 or 5 sentiment words anywhere in the sentence) must learn it with an
// ATR encoder (last state), an LSTM with attentive pooling and a self-attention block (relative positions, mean
// pooling); the confusion matrix must add up to the split. The task's --memory flag writes memory.json with the
// "great" sentence first and a passing decomposition check; a model the analysis cannot read is refused before
// training; malformed flag values are errors. `classify predict` reproduces a run's test predictions, also
// under a length policy (data.max_length, token caps), which summary.json reports.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>

#include "classify_predict.h"
#include "classify_synthetic.h"
#include "classify_task.h"
#include "data/text.h"
#include "smoke_run.h"
#include "test_util.h"

namespace twin::classify {
namespace {

using namespace twin::test;   // the test helpers of test_util.h

struct SmokeCase {
  std::string name;
  nlohmann::json model;   // merged over the smoke file's model section
};

class ClassifySmoke : public ::testing::TestWithParam<SmokeCase> {};

TEST_P(ClassifySmoke, LearnsTheGeneratedLabels) {
  TempDir data("cls_data"), run("cls_run");
  write_synthetic_sentiment(data.str(), 3);
  nlohmann::json config = test::smoke_config("classify_atr.json", data.str(), run.str());
  config["model"].merge_patch(GetParam().model);
  auto s = test::train_smoke<ClassifyTask>(config, "smoke/classify_atr.json", run.str());
  EXPECT_LT(test::tail_mean_loss(s.out.losses), s.out.losses.front() / 3) << "training loss did not drop";
  EXPECT_GE(s.out.best.primary, 0.9) << "dev accuracy (chance 1/2)";
  const Metrics test = s.task->evaluate(Split::kTest);
  EXPECT_GT(test.primary, 0.88);
  long total = 0, diagonal = 0;
  const auto& conf = test.values.at("confusion_gold_by_predicted");
  for (int g = 0; g < 2; ++g)
    for (int p = 0; p < 2; ++p) {
      total += conf[g][p].get<long>();
      if (g == p) diagonal += conf[g][p].get<long>();
    }
  EXPECT_EQ(total, 200);
  EXPECT_NEAR(static_cast<double>(diagonal) / 200.0, test.primary, 1e-12);
  std::cout << "[ classify ] " << GetParam().name << ": dev " << s.out.best.primary << ", test " << test.primary
            << " after " << s.out.steps << " steps\n";
}

INSTANTIATE_TEST_SUITE_P(
    Encoders, ClassifySmoke,
    ::testing::Values(SmokeCase{"atr_last", nlohmann::json::object()},
                      SmokeCase{"lstm_attentive", {{"cell", {{"type", "lstm"}}}, {"pooling", "attentive"}}},
                      SmokeCase{"self_attention_relative",
                                {{"encoder", "self_attention"},
                                 {"pooling", "mean"},
                                 {"self_attention", {{"position", "relative"}, {"clip_k", 4}}}}}),
    [](const auto& info) { return info.param.name; });

// --memory 2 on an (untrained) ATR model: memory.json holds the "great" sentence first, then the first 2 test
// sentences, and the decomposition check passes.
TEST(ClassifyTask, MemoryFlagWritesMemoryJson) {
  TempDir data("cls_data"), run("cls_run");
  write_synthetic_sentiment(data.str(), 5, 200, 50, 50);
  nlohmann::json config = test::smoke_config("classify_atr.json", data.str(), run.str());
  JsonReader root(config, "smoke");
  const RunConfig rc = parse_run(root);
  JsonReader tr = root.child("train");
  const TrainConfig tc = parse_train(tr);
  CliArgs args;
  args.task_flags["--memory"] = "2";
  ClassifyTask task(root, rc, tc, args);
  nlohmann::json summary = nlohmann::json::object();
  task.finish(run.str(), summary);
  ASSERT_TRUE(summary.contains("memory"));
  EXPECT_EQ(summary["memory"]["passed"], true);
  std::ifstream in(run.file("memory.json"));
  const nlohmann::json mem = nlohmann::json::parse(in);
  EXPECT_EQ(mem["cell"], "atr");
  EXPECT_EQ(mem["exact"], true);
  EXPECT_EQ(mem["decomposition_check"]["passed"], true);
  EXPECT_LE(mem["decomposition_check"]["max_rel_error"].get<double>(), kMemoryTolerance);
  const auto& sents = mem["sentences"];
  ASSERT_EQ(sents.size(), 3u);
  const auto first = sents[0]["tokens"].get<std::vector<std::string>>();
  EXPECT_NE(std::find(first.begin(), first.end(), "great"), first.end());
  EXPECT_EQ(sents[0]["label"], 1) << "a positive sentence with \"great\" comes first when there is one";
  EXPECT_EQ(mem["tokens"], sents[0]["tokens"]);
  EXPECT_EQ(mem["weights"], sents[0]["weights"]);
  EXPECT_TRUE(sents[0].contains("weights_units"));
  EXPECT_FALSE(sents[1].contains("weights_units"));
  for (const auto& s : sents) {
    const size_t n = s["tokens"].size();
    EXPECT_EQ(s["weights"].size(), n);
    EXPECT_EQ(s["weights_by_step"].size(), n);
    EXPECT_EQ(s["input_gate"].size(), n);
    EXPECT_EQ(s["probabilities"].size(), 2u);
    EXPECT_TRUE(s["label"].is_number_integer());
  }
  // The first 2 test sentences follow (unless the "great" one is among them), named by their line.
  EXPECT_EQ(sents[1]["source"].get<std::string>().rfind("test:", 0), 0u);

  // --memory-file: the file's sentences, labels unknown.
  std::ofstream(data.file("mine.txt")) << "a great w1 w2\n\nbad w3\n";
  CliArgs fa;
  fa.task_flags["--memory-file"] = data.file("mine.txt");
  JsonReader root2(config, "smoke");
  parse_run(root2);
  JsonReader tr2 = root2.child("train");
  parse_train(tr2);
  ClassifyTask t2(root2, rc, tc, fa);
  std::vector<Example> chosen;
  std::vector<std::string> sources;
  memory_sentences(t2.memory_request(), t2.memory_subject(), chosen, sources);
  ASSERT_EQ(chosen.size(), 2u);
  EXPECT_EQ(sources[1], "file:3");
  const nlohmann::json rep = memory_report(t2.memory_subject(), chosen, sources);
  EXPECT_TRUE(rep["sentences"][0]["label"].is_null());
  EXPECT_EQ(rep["sentences"][0]["unknown"], nlohmann::json::array({0}));   // "a" is not in the toy vocabulary
}

TEST(ClassifyTask, MemoryFlagNeedsAUnidirectionalTwinGatedEncoderAndANumber) {
  TempDir data("cls_data"), run("cls_run");
  write_synthetic_sentiment(data.str(), 5, 100, 20, 20);
  auto make = [&](const nlohmann::json& model_patch, const std::string& flag, const std::string& value) {
    nlohmann::json config = test::smoke_config("classify_atr.json", data.str(), run.str());
    config["model"].merge_patch(model_patch);
    JsonReader root(config, "smoke");
    const RunConfig rc = parse_run(root);
    JsonReader tr = root.child("train");
    const TrainConfig tc = parse_train(tr);
    CliArgs args;
    args.task_flags[flag] = value;
    ClassifyTask task(root, rc, tc, args);
  };
  EXPECT_TRUE(contains(error_of([&] { make({{"cell", {{"type", "gru"}}}}, "--memory", "3"); }), "twin-gated"));
  EXPECT_TRUE(contains(error_of([&] { make({{"bidirectional", true}}, "--memory", "3"); }), "unidirectional"));
  EXPECT_TRUE(contains(error_of([&] { make(nlohmann::json::object(), "--memory", "x"); }), "--memory expects a number"));
  EXPECT_TRUE(contains(error_of([&] { make(nlohmann::json::object(), "--memory", "-2"); }), "--memory expects a number"));
  EXPECT_TRUE(contains(error_of([&] { make(nlohmann::json::object(), "--memory-file", data.file("none.txt")); }), "not found"));
  EXPECT_EQ(error_of([&] { make(nlohmann::json::object(), "--memory", "0"); }), twin::test::kNoErrorThrown);
}

// `classify predict` (issue 29): a run trained through the command line (data.lowercase on) keeps vocab.txt, and
// `classify predict <run>` on its test sentences, given in capitals, reproduces predictions/test.txt line for
// line (the run's lowercasing applied), with each label's probability; any batch size gives the same labels; a
// run without vocab.txt rebuilds it identically; bad input is exit 2 naming the line, with nothing written.
TEST(ClassifyCli, PredictCommandReproducesTheRunsTestPredictions) {
  TempDir data("cls_data"), run("cls_run"), io("cls_io");
  write_synthetic_sentiment(data.str(), 5, 600, 60, 60);
  nlohmann::json config = test::smoke_config("classify_atr.json", data.str(), run.str());
  config["data"]["lowercase"] = true;
  config["train"]["max_epochs"] = 4;
  std::ofstream(io.file("exp.json")) << config.dump(2);
  const test::CliResult trained = test::run_task<ClassifyTask>("classify", io.file("exp.json"));
  ASSERT_EQ(trained.code, 0) << trained.err;
  ASSERT_TRUE(std::filesystem::exists(run.file("vocab.txt")));
  const std::vector<std::string> expected = read_lines(run.file("predictions/test.txt"));
  std::string input;
  for (const std::string& line : read_lines(data.file("test.txt"))) {
    std::string text = line.substr(line.find(' ') + 1);
    for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    input += text + "\n";
  }
  std::ofstream(io.file("in.txt")) << input;
  std::vector<std::vector<std::string>> outputs;
  for (const char* batch : {"", "1"}) {
    std::vector<std::string> args = {"predict", run.path.string(), "--input", io.file("in.txt"), "--output", io.file("out.txt")};
    if (*batch) args.insert(args.end(), {"--batch", batch});
    const test::CliResult r = test::run_predict_mode("classify predict", predict_main, args);
    ASSERT_EQ(r.code, 0) << r.err;
    outputs.push_back(read_lines(io.file("out.txt")));
  }
  ASSERT_EQ(outputs[0].size(), expected.size());
  int seen[2] = {0, 0};
  for (size_t i = 0; i < expected.size(); ++i) {
    const auto f = split_whitespace(outputs[0][i]);
    ASSERT_EQ(f.size(), 2u) << outputs[0][i];
    EXPECT_EQ(outputs[0][i].find('\t'), f[0].size()) << "label<TAB>probability";
    EXPECT_EQ(f[0], expected[i]) << "line " << i + 1;
    EXPECT_TRUE(f[0] == "0" || f[0] == "1") << f[0];
    ++seen[f[0] == "1"];
    const double p = std::stod(f[1]);
    EXPECT_TRUE(p >= 0.5 && p <= 1.0) << "the probability of the most probable of 2 labels: " << p;
    const auto one = split_whitespace(outputs[1][i]);
    EXPECT_EQ(one[0], f[0]) << "--batch 1, line " << i + 1;
    EXPECT_NEAR(std::stod(one[1]), p, 1e-5) << "--batch 1, line " << i + 1;
  }
  EXPECT_GT(seen[0], 5);
  EXPECT_GT(seen[1], 5);
  // A run that predates vocab.txt: rebuilt from the training split, the same labels.
  std::filesystem::remove(run.file("vocab.txt"));
  const Predictor pred = Predictor::load(run.path.string());
  const auto rebuilt = pred.predict(pred.read_sentences(read_lines(io.file("in.txt")), "in.txt"), eval_batching(256));
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(std::to_string(rebuilt[i].label), expected[i]) << i + 1;
  // Bad input: exit 2, one error line naming the line, nothing written.
  std::ofstream(io.file("bad.txt")) << "good w1 w2\n   \nbad w3\n";
  const test::CliResult bad = test::run_predict_mode(
      "classify predict", predict_main, {"predict", run.path.string(), "--input", io.file("bad.txt"), "--output", io.file("bad_out.txt")});
  EXPECT_EQ(bad.code, 2);
  EXPECT_PRED2(contains, bad.err, "classify predict: error: " + io.file("bad.txt") + ":2: empty line");
  EXPECT_FALSE(std::filesystem::exists(io.file("bad_out.txt")));
  std::filesystem::remove(run.file("model.best.bin"));
  const test::CliResult no_model = test::run_predict_mode("classify predict", predict_main, {"predict", run.path.string()});
  EXPECT_EQ(no_model.code, 2);
  EXPECT_PRED2(contains, no_model.err, "no trained model at " + run.file("model.best.bin"));
}

// A length policy end to end (issue 52): a run with data.max_length, data.batch_tokens and data.eval_batch_tokens
// reports, in summary.json, how many examples of each split were cut (the counts the data give), what its
// training batches held (within the token cap, padding share), training tokens/s and the peak resident memory;
// `classify predict` applies the run's policy to its input, so the test split's text gives predictions/test.txt.
TEST(ClassifyCli, LengthPolicyIsAppliedEverywhereAndReported) {
  TempDir data("cls_data"), run("cls_run"), io("cls_io");
  write_synthetic_sentiment(data.str(), 9, 400, 60, 60);
  nlohmann::json config = test::smoke_config("classify_atr.json", data.str(), run.str());
  config["data"].update({{"max_length", 8}, {"truncate", "head+tail"}, {"truncate_head", 3}, {"batch_tokens", 120},
                         {"eval_batch_tokens", 200}});
  config["train"]["max_epochs"] = 2;
  std::ofstream(io.file("exp.json")) << config.dump(2);
  const test::CliResult trained = test::run_task<ClassifyTask>("classify", io.file("exp.json"));
  ASSERT_EQ(trained.code, 0) << trained.err;
  EXPECT_PRED2(contains, trained.err, "length policy: the first 3 and the last 5 tokens");
  std::ifstream in(run.file("summary.json"));
  const nlohmann::json summary = nlohmann::json::parse(in);
  ASSERT_TRUE(summary.contains("length_policy")) << summary.dump(2);
  const nlohmann::json& lp = summary["length_policy"];
  EXPECT_EQ(lp["kept"], "the first 3 and the last 5 tokens");
  for (const std::string split : {"train", "dev", "test"}) {
    long n = 0, cut = 0, dropped = 0;   // from the file itself: the label, then the tokens
    for (const std::string& line : read_lines(data.file(split + ".txt"))) {
      const long tokens = static_cast<long>(split_whitespace(line).size()) - 1;
      ++n;
      cut += tokens > 8;
      dropped += std::max(0L, tokens - 8);
    }
    ASSERT_GT(cut, 0) << split << ": the generated sentences have 5-17 tokens, some over 8";
    EXPECT_EQ(lp["splits"][split]["examples"], n) << split;
    EXPECT_EQ(lp["splits"][split]["truncated"], cut) << split;
    EXPECT_EQ(lp["splits"][split]["tokens_dropped"], dropped) << split;
  }
  const nlohmann::json& tb = lp["train_batches"];
  EXPECT_EQ(tb["examples"], 2 * 400);   // two epochs
  EXPECT_LE(tb["largest"]["positions"].get<long>(), 120);
  EXPECT_LE(tb["largest"]["steps"].get<long>(), 8);
  EXPECT_GE(tb["padding_share"].get<double>(), 0.0);
  EXPECT_LT(tb["padding_share"].get<double>(), 0.5);
  EXPECT_GT(summary["train_tokens_per_s"].get<double>(), summary["train_sentences_per_s"].get<double>());
  EXPECT_GT(summary["peak_rss_mb"].get<double>(), 1.0);
  // predict: the test split's whole lines in, the run's own predictions out (the policy cut them alike).
  std::string input;
  for (const std::string& line : read_lines(data.file("test.txt"))) input += line.substr(line.find(' ') + 1) + "\n";
  std::ofstream(io.file("in.txt")) << input;
  const test::CliResult r = test::run_predict_mode(
      "classify predict", predict_main,
      {"predict", run.path.string(), "--input", io.file("in.txt"), "--output", io.file("out.txt")});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::vector<std::string> expected = read_lines(run.file("predictions/test.txt"));
  const std::vector<std::string> out = read_lines(io.file("out.txt"));
  ASSERT_EQ(out.size(), expected.size());
  for (size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i].substr(0, out[i].find('\t')), expected[i]) << i + 1;
}

}  // namespace
}  // namespace twin::classify
