// The lm command line: the bad-input table (one clear line on stderr, exit code 2), train / resume / refuse to
// overwrite, the score and print-config commands, and --dump-gates.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "data/text.h"
#include "train/predict_cli.h"
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

// The bad-input table, through the real command line: each is one clear line on stderr and exit code 2.
class LmCli : public ::testing::Test {
 protected:
  void SetUp() override {
    write_synthetic_corpus(data_.str(), 17, 40, 10, 10);
    config_ = test::smoke_config("lm_atr.json", data_.str(), out_.str("run"));
    std::ofstream(cfg_.str("exp.json")) << config_.dump(2);
  }
  // `lm <args>` through run_main: its exit code, its stderr in *err and its stdout in *out (when given).
  static int run_lm(std::vector<std::string> args, std::string* err, std::string* out = nullptr) {
    args.insert(args.begin(), "lm");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    ::testing::internal::CaptureStderr();
    ::testing::internal::CaptureStdout();
    const int rc = run_main<LmTask>(static_cast<int>(argv.size()), argv.data(), "lm");
    *err = ::testing::internal::GetCapturedStderr();
    const std::string printed = ::testing::internal::GetCapturedStdout();
    if (out) *out = printed;
    return rc;
  }
  // `lm <the experiment> <extra>`.
  int run(std::vector<std::string> extra, std::string* err, std::string* out = nullptr) {
    extra.insert(extra.begin(), cfg_.str("exp.json"));
    return run_lm(std::move(extra), err, out);
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

// A run killed after its last checkpoint but before summary.json was written (the crash_resume window that
// seed 24032 hit) is not finished: --resume goes on to the final evaluation and writes the summary the
// uninterrupted run wrote, without training a step more or logging a metrics line twice.
TEST_F(LmCli, ResumeOfARunKilledBeforeItsSummaryWritesIt) {
  std::string err;
  ASSERT_EQ(run({"--set", "train.max_epochs=2"}, &err), 0) << err;   // two dev evaluations, train lines
  const auto whole = nlohmann::json::parse(read_file(out_.str("run/summary.json")));
  const std::string metrics0 = read_file(out_.str("run/metrics.jsonl"));
  ASSERT_NE(metrics0.find("\"split\":\"dev\""), std::string::npos) << metrics0;
  // The state that kill leaves: everything but the summary and the outputs written beside it.
  fs::remove(out_.str("run/summary.json"));
  fs::remove_all(out_.str("run/logprobs"));
  ASSERT_EQ(run({"--resume"}, &err), 0) << err;
  EXPECT_EQ(err.find("has finished"), std::string::npos) << err;
  ASSERT_TRUE(fs::exists(out_.str("run/summary.json"))) << err;
  const auto resumed = nlohmann::json::parse(read_file(out_.str("run/summary.json")));
  EXPECT_EQ(resumed["steps"], whole["steps"]);
  EXPECT_EQ(resumed["dev"], whole["dev"]);
  EXPECT_EQ(resumed["test"], whole["test"]);
  EXPECT_EQ(resumed["best_dev"], whole["best_dev"]);
  EXPECT_EQ(read_file(out_.str("run/metrics.jsonl")), metrics0);
  EXPECT_TRUE(fs::exists(out_.str("run/logprobs/test.txt")));
  // Now it has finished: a second resume changes nothing.
  ASSERT_EQ(run({"--resume"}, &err), 0) << err;
  EXPECT_NE(err.find("has finished"), std::string::npos) << err;
  // The same kill in a continuation (a raised budget) leaves the earlier invocation's summary behind: it speaks
  // of fewer steps than the checkpoint, so the run is not finished and the resume replaces it.
  ASSERT_EQ(run({"--resume", "--set", "train.max_epochs=3"}, &err), 0) << err;
  const std::string longer = read_file(out_.str("run/summary.json"));
  ASSERT_GT(nlohmann::json::parse(longer)["steps"].get<long>(), whole["steps"].get<long>());
  test::write_file(out_.str("run/summary.json"), whole.dump(2) + "\n");   // the stale one
  ASSERT_EQ(run({"--resume"}, &err), 0) << err;
  EXPECT_EQ(err.find("has finished"), std::string::npos) << err;
  const auto again = nlohmann::json::parse(read_file(out_.str("run/summary.json")));
  EXPECT_EQ(again["steps"], nlohmann::json::parse(longer)["steps"]);
  EXPECT_EQ(again["test"], nlohmann::json::parse(longer)["test"]);
  // An unreadable summary (not JSON) is not taken for a finished run either.
  test::write_file(out_.str("run/summary.json"), "{\"steps\": ");
  ASSERT_EQ(run({"--resume"}, &err), 0) << err;
  EXPECT_EQ(nlohmann::json::parse(read_file(out_.str("run/summary.json")))["test"], again["test"]);
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
  // The mode's input is checked as it is read (data/text.h: one check for every reader), before score() sees it.
  PredictArgs bad;
  bad.input = out_.write("bad.txt", lines[0] + "\na\xff\n");
  EXPECT_PRED2(test::contains, test::error_of([&] { read_input_lines(bad); }),
               bad.input + ":2: invalid UTF-8 at byte 1 of the line");
  EXPECT_PRED2(test::contains, test::error_of([&] { Scorer::load(data_.str()); }), "config.resolved.json");
}

TEST_F(LmCli, HelpAndVersionExitZero) {
  for (const char* flag : {"--help", "-h", "--version"}) {
    std::string out, err;
    EXPECT_EQ(run_lm({flag}, &err, &out), 0) << flag << ": " << err;
    if (std::string(flag) == "--version") {
      EXPECT_NE(out.find("lm (twinrnn "), std::string::npos) << out;
      EXPECT_NE(out.find(", git "), std::string::npos) << out;
      EXPECT_NE(out.find("matrix products: Eigen"), std::string::npos) << out;
      EXPECT_NE(out.find(" + OpenBLAS "), std::string::npos) << out;   // its kernels and what it takes (gemm.h)
    } else {
      EXPECT_EQ(out.rfind("usage: lm <experiment.json>", 0), 0u) << out;
      for (const char* opt : {"--resume", "--seeds", "--dump-gates", "--print-keys", "experiments/KEYS.md"})
        EXPECT_NE(out.find(opt), std::string::npos) << opt << " missing from --help:\n" << out;
    }
  }
  EXPECT_FALSE(fs::exists(out_.str("run")));   // neither touches a run folder
}

TEST_F(LmCli, PrintConfigPrintsTheResolvedExperimentAndWritesNothing) {
  std::string out, err;
  ASSERT_EQ(run({"--print-config", "--set", "train.optim.lr=0.5", "--seed", "3"}, &err, &out), 0) << err;
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["train"]["optim"]["lr"], 0.5);                 // --set applied
  EXPECT_EQ(j["seed"], 3);                                   // --seed applied
  EXPECT_EQ(j["out_dir"], out_.str("run") + "_s3");
  EXPECT_EQ(j["model"]["cell"]["layer_norm"], false);        // a key the experiment file never names: its default
  EXPECT_TRUE(j["train"].contains("patience"));
  EXPECT_FALSE(fs::exists(out_.str("run_s3")));               // nothing written
  EXPECT_FALSE(fs::exists(out_.str("run")));
}

TEST_F(LmCli, PrintParamsPrintsTheParameterTableOfTheConfigAndWritesNothing) {
  auto print_params = [&](const std::string& hidden, std::string* err) {
    std::string out;
    EXPECT_EQ(run({"--print-params", "--set", "model.cell.hidden=" + hidden}, err, &out), 0) << *err;
    return nlohmann::json::parse(out);
  };
  std::string err;
  const auto a = print_params("8", &err), b = print_params("12", &err);
  long total = 0;
  bool saw_w = false;
  for (const auto& p : a["params"]) {
    EXPECT_EQ(p["count"].get<long>(), p["rows"].get<long>() * p["cols"].get<long>()) << p.dump();
    total += p["count"].get<long>();
    const std::string name = p["name"];
    if (name.size() > 2 && name.substr(name.size() - 2) == "/W" && name.find("/atr/") != std::string::npos) {
      EXPECT_EQ(p["cols"], 8) << name;   // ATR's W is [I, H]: the hidden size given with --set
      saw_w = true;
    }
  }
  EXPECT_TRUE(saw_w) << a.dump();
  EXPECT_EQ(a["total"].get<long>(), total);
  EXPECT_GT(b["total"].get<long>(), a["total"].get<long>());   // a wider cell has more parameters
  EXPECT_FALSE(fs::exists(out_.str("run")));                   // nothing written
  EXPECT_EQ(run({"--print-params", "--resume"}, &err), 2);
  EXPECT_NE(err.find("--print-params"), std::string::npos) << err;
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
