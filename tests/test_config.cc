// Strict config parsing, "extends", --set overrides and the resolved config (DESIGN §4 "Experiment JSON").
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/check.h"
#include "test_util.h"
#include "train/cli.h"
#include "train/config.h"
#include "train/experiment.h"
#include "base/json_reader.h"
#include "train/run_dir.h"

namespace twin {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kDir = std::string(TW_SOURCE_DIR) + "/tests/data/config/";

using test::contains;
using test::error_of;
using test::TempDir;

TrainConfig train_from(const json& j, const std::string& file = "experiments/x.json") {
  JsonReader root(json{{"train", j}}, file);
  JsonReader r = root.child("train");
  return parse_train(r);
}

// ---- JsonReader and the typed parsers ----

TEST(Config, UnknownKeyNamesFullPathAndSuggestsClosest) {
  std::string msg = error_of([] { train_from({{"optim", {{"lerning_rate", 0.1}}}}, "experiments/lm/atr.json"); });
  EXPECT_PRED2(contains, msg, "experiments/lm/atr.json: unknown key \"train.optim.lerning_rate\"");
  EXPECT_PRED2(contains, msg, "allowed: name, lr, momentum");
  EXPECT_PRED2(contains, msg, "(did you mean \"lr\"?)");

  msg = error_of([] { train_from({{"batch_szie", 20}}); });
  EXPECT_PRED2(contains, msg, "unknown key \"train.batch_szie\"");
  EXPECT_PRED2(contains, msg, "(did you mean \"batch_size\"?)");

  // No plausible neighbour: no guess.
  msg = error_of([] { train_from({{"zzzzzzzz", 1}}); });
  EXPECT_PRED2(contains, msg, "unknown key \"train.zzzzzzzz\"");
  EXPECT_FALSE(contains(msg, "did you mean"));
}

TEST(Config, WrongTypeNamesKeyExpectedAndFound) {
  std::string msg = error_of([] { train_from({{"batch_size", "20"}}); });
  EXPECT_PRED2(contains, msg, "experiments/x.json: \"train.batch_size\" must be an integer in [1, 100000], got \"20\" (string)");
  msg = error_of([] { train_from({{"optim", {{"lr", true}}}}); });
  EXPECT_PRED2(contains, msg, "\"train.optim.lr\" must be a number in [0, 1000], got true (boolean)");
  msg = error_of([] { train_from({{"optim", 3}}); });
  EXPECT_PRED2(contains, msg, "\"train.optim\" must be an object, got 3 (number)");
  msg = error_of([] { train_from({{"batch_size", 2.5}}); });
  EXPECT_PRED2(contains, msg, "got 2.5 (number)");
  // JSON writes 1e2 as a float; an integral float is an integer.
  EXPECT_EQ(train_from({{"batch_size", 1e2}}).batch_size, 100);
}

TEST(Config, OutOfRangeIsRejected) {
  std::string msg = error_of([] { train_from({{"batch_size", 0}}); });
  EXPECT_PRED2(contains, msg, "\"train.batch_size\" must be an integer in [1, 100000], got 0 (number)");
  msg = error_of([] { train_from({{"optim", {{"lr", -1}}}}); });
  EXPECT_PRED2(contains, msg, "\"train.optim.lr\" must be a number in [0, 1000], got -1 (number)");
  msg = error_of([] { train_from({{"optim", {{"beta2", 1.0}}}}); });
  EXPECT_PRED2(contains, msg, "\"train.optim.beta2\" must be < 1");
  msg = error_of([] { train_from({{"optim", {{"name", "adma"}}}}); });
  EXPECT_PRED2(contains, msg, "must be one of sgd, adam, adagrad, adadelta, got \"adma\" (string) (did you mean \"adam\"?)");
  msg = error_of([] { train_from({{"schedule", {{"type", "warmup_rsqrt"}}}}); });
  EXPECT_PRED2(contains, msg, "\"train.schedule.warmup_steps\" must be >= 1");
}

TEST(Config, RequiredAndUint64Getters) {
  JsonReader r(json{{"seed", 18446744073709551615ULL}, {"neg", -1}, {"s", "x"}}, "f.json", "run");
  EXPECT_EQ(r.get_uint64("seed", 1), 18446744073709551615ULL);
  EXPECT_PRED2(contains, error_of([&] { r.get_uint64("neg", 1); }), "\"run.neg\" must be a non-negative integer, got -1");
  EXPECT_PRED2(contains, error_of([&] { r.require_int("missing"); }), "f.json: missing required key \"run.missing\"");
  EXPECT_EQ(r.require_string("s"), "x");
  EXPECT_EQ(r.get_int("absent", 42), 42);
  EXPECT_NO_THROW(r.finish());
}

TEST(Config, CellTypeMustBeRegistered) {
  JsonReader r(json{{"type", "atrr"}, {"hidden", 8}}, "e.json", "model.cell");
  std::string msg = error_of([&] { parse_cell(r); });
  EXPECT_PRED2(contains, msg, "\"model.cell.type\" is not a registered cell: \"atrr\"");
  EXPECT_PRED2(contains, msg, "(did you mean \"atr\"?)");
  JsonReader ok(json{{"type", "gru"}, {"hidden", 8}, {"gru_reset_after", false}}, "e.json", "model.cell");
  CellConfig c = parse_cell(ok);
  EXPECT_EQ(c.type, "gru");
  EXPECT_EQ(c.hidden, 8);
  EXPECT_FALSE(c.gru_reset_after);
}

// to_json must write every field: parsing it back strictly (unknown key = error) must give the same struct,
// and with every field off its default, a field missing from to_json would come back as its default.
TEST(Config, ToJsonRecordsEveryFieldAndParsesBack) {
  TrainConfig t;
  t.max_epochs = 7, t.max_steps = 99, t.max_minutes = 1.5, t.batch_size = 3, t.eval_every = 11, t.patience = 2;
  t.log_every = 5, t.save_every = 13;
  t.optim = {OptimKind::kAdam, 0.01, 0.5, 0.8, 0.99, 1e-6, 0.9, 0.1, 1e-4, 2.5};
  t.schedule = {ScheduleKind::kGnmt, 2, 0.25, 3, 1e-5, 100, 200, 50};
  json j = to_json(t);
  TrainConfig back = train_from(j);
  EXPECT_EQ(to_json(back), j);
  EXPECT_EQ(back.optim.eps, 1e-6);
  EXPECT_EQ(back.schedule.decay_interval, 50);
  EXPECT_EQ(j["optim"].size(), 10u);
  EXPECT_EQ(j["schedule"].size(), 8u);

  CellConfig c;
  c.type = "lstm", c.hidden = 5, c.output = CellOutput::kTanh, c.bias = CellBias::kNone, c.input_tanh = true;
  c.coupled = true, c.layer_norm = true, c.init = WeightInit::kOrthogonal, c.init_scale = 0.5, c.forget_bias = 1.0;
  c.gru_reset_after = false, c.transitions = 3, c.content = RanContent::kIdentity;
  c.bias_init = BiasInit::kUniform, c.highway_bias = -1.5;
  JsonReader cr(to_json(c), "e.json", "model.cell");
  EXPECT_EQ(to_json(parse_cell(cr)), to_json(c));
  EXPECT_EQ(to_json(c).size(), kAllCellOpts.size() + 2);   // type, hidden and every option
}

TEST(Config, RunDefaultsFromFileName) {
  JsonReader r(json{{"seed", 5}}, "experiments/lm/atr_h650.json");
  RunConfig run = parse_run(r);
  EXPECT_EQ(run.name, "atr_h650");
  EXPECT_EQ(run.out_dir, "runs/atr_h650");
  EXPECT_EQ(run.seed, 5u);
  EXPECT_EQ(run.threads, 2);
  JsonReader bad(json{{"name", "a/b"}}, "e.json");
  EXPECT_PRED2(contains, error_of([&] { parse_run(bad); }), "\"name\" must use only letters");
}

// ---- Experiment: extends and --set ----

TEST(Config, ExtendsMergesDeeplyAndReplacesArrays) {
  Experiment e = Experiment::load(kDir + "child.json");
  const json& j = e.json();
  EXPECT_FALSE(j.contains("extends"));
  EXPECT_EQ(e.base_path(), fs::path(kDir + "base.json").lexically_normal().string());
  EXPECT_EQ(j["name"], "child_run");
  EXPECT_EQ(j["seed"], 7);                                    // from the base
  EXPECT_EQ(j["data"]["dir"], "data/toy");                   // sibling of an overridden key survives
  EXPECT_EQ(j["data"]["files"], json::array({"z.txt"}));     // arrays are replaced, not merged
  EXPECT_EQ(j["model"]["cell"]["type"], "atr");
  EXPECT_EQ(j["model"]["cell"]["hidden"], 64);
  EXPECT_EQ(j["model"]["layers"], 2);
  EXPECT_EQ(j["train"]["optim"]["lr"], 0.5);
  EXPECT_EQ(j["train"]["optim"]["name"], "sgd");
  EXPECT_EQ(j["train"]["optim"]["clip_norm"], 5.0);
}

TEST(Config, ExtendsIsRelativeToTheExtendingFile) {
  Experiment e = Experiment::load(kDir + "sub/child_relative.json");
  EXPECT_EQ(e.json()["model"]["layers"], 3);
  EXPECT_EQ(e.json()["model"]["cell"]["hidden"], 32);
  EXPECT_EQ(e.json()["name"], "base_run");
}

TEST(Config, ExtendsErrors) {
  std::string msg = error_of([] { Experiment::load(kDir + "extends_twice.json"); });
  EXPECT_PRED2(contains, msg, "only one level of \"extends\" is allowed");
  EXPECT_PRED2(contains, msg, "child.json");
  msg = error_of([] { Experiment::load(kDir + "missing_base.json"); });
  EXPECT_PRED2(contains, msg, "cannot read");
  EXPECT_PRED2(contains, msg, "no_such_base.json");
  msg = error_of([] { Experiment::load(kDir + "does_not_exist.json"); });
  EXPECT_PRED2(contains, msg, "does_not_exist.json");
}

TEST(Config, JsonSyntaxErrorReportsLineAndColumn) {
  std::string msg = error_of([] { Experiment::load(kDir + "syntax_error.json"); });
  EXPECT_PRED2(contains, msg, "syntax_error.json:4:");
  EXPECT_PRED2(contains, msg, "JSON syntax error");
}

TEST(Config, SetOverridesParseJsonOrString) {
  Experiment e = Experiment::load(kDir + "child.json",
                                  {"train.batch_size=64", "train.optim.name=adam", "model.cell.layer_norm=true",
                                   "train.schedule.type=plateau", "data.files=[\"q.txt\",\"r.txt\"]",
                                   "train.optim.lr=1e-3", "name=\"quoted\""});
  const json& j = e.json();
  EXPECT_EQ(j["train"]["batch_size"], 64);
  EXPECT_TRUE(j["train"]["batch_size"].is_number_integer());
  EXPECT_EQ(j["train"]["optim"]["name"], "adam");                 // not JSON: kept as a string
  EXPECT_EQ(j["model"]["cell"]["layer_norm"], true);
  EXPECT_EQ(j["train"]["schedule"]["type"], "plateau");           // a new nested object is created
  EXPECT_EQ(j["data"]["files"], json::array({"q.txt", "r.txt"}));
  EXPECT_DOUBLE_EQ(j["train"]["optim"]["lr"].get<double>(), 1e-3);
  EXPECT_EQ(j["name"], "quoted");
  EXPECT_EQ(j["seed"], 7);                                        // untouched

  EXPECT_PRED2(contains, error_of([] { Experiment::load(kDir + "child.json", {"train.batch_size"}); }),
               "expected key.path=value");
  EXPECT_PRED2(contains, error_of([] { Experiment::load(kDir + "child.json", {"train.batch_size.x=1"}); }),
               "\"train.batch_size\" is 16 (number), not an object");
  EXPECT_PRED2(contains, error_of([] { Experiment::load(kDir + "child.json", {"train..lr=1"}); }),
               "empty component");
}

TEST(Config, UnknownKeyNamesTheFileOrOverrideThatHoldsIt) {
  Experiment e = Experiment::load(kDir + "child_of_typo.json");
  JsonReader root = e.reader();
  JsonReader tr = root.child("train");
  std::string msg = error_of([&] { parse_train(tr); });
  EXPECT_PRED2(contains, msg, "base_typo.json: unknown key \"train.optim.lerning_rate\"");

  Experiment s = Experiment::load(kDir + "child.json", {"train.optim.lrr=0.1"});
  JsonReader root2 = s.reader();
  JsonReader tr2 = root2.child("train");
  msg = error_of([&] { parse_train(tr2); });
  EXPECT_PRED2(contains, msg, "--set train.optim.lrr=0.1: unknown key \"train.optim.lrr\"");
  EXPECT_PRED2(contains, msg, "(did you mean \"lr\"?)");
}

TEST(Config, ResolvedFileRecordsDefaults) {
  TempDir tmp;
  Experiment e = Experiment::load(kDir + "child.json", {"train.patience=4"});
  e.set_command_line({"build/bin/lm", kDir + "child.json", "--set", "train.patience=4"});
  JsonReader root = e.reader();
  RunConfig run = parse_run(root);
  JsonReader tr = root.child("train");
  TrainConfig train = parse_train(tr);
  JsonReader model = root.child("model");
  JsonReader cr = model.child("cell");
  CellConfig cell = parse_cell(cr);
  json typed = to_json(run);
  typed["train"] = to_json(train);
  typed["model"]["cell"] = to_json(cell);
  const std::string dir = (tmp.path / "run" / "nested").string();   // parents are created
  e.write_resolved(dir, typed);

  json r = json::parse(read_file(dir + "/config.resolved.json"));
  EXPECT_EQ(r["train"]["optim"]["beta2"], 0.999);          // defaults are visible
  EXPECT_EQ(r["train"]["schedule"]["type"], "constant");
  EXPECT_EQ(r["train"]["log_every"], 100);
  EXPECT_EQ(r["train"]["patience"], 4);                     // the override
  EXPECT_EQ(r["train"]["optim"]["lr"], 0.5);                // the extending file
  EXPECT_EQ(r["model"]["cell"]["gru_reset_after"], true);
  EXPECT_EQ(r["model"]["cell"]["hidden"], 64);
  EXPECT_EQ(r["model"]["layers"], 2);                       // untyped task keys are kept
  EXPECT_EQ(r["threads"], 2);
  EXPECT_EQ(r["out_dir"], "runs/child_run");
  EXPECT_FALSE(r.contains("extends"));
  // The resolved file is itself a valid experiment that parses to the same typed config.
  Experiment again = Experiment::from_json(r, "config.resolved.json");
  JsonReader root2 = again.reader();
  JsonReader tr2 = root2.child("train");
  EXPECT_EQ(to_json(parse_train(tr2)), to_json(train));

  std::string cmd = read_file(dir + "/command.txt");
  EXPECT_PRED2(contains, cmd, "build/bin/lm ");
  EXPECT_PRED2(contains, cmd, "--set train.patience=4");
  EXPECT_PRED2(contains, cmd, "# extends: ");
  // A second invocation (a --resume) appends: the first command is kept.
  e.write_resolved(dir, typed);
  const std::string twice = read_file(dir + "/command.txt");
  EXPECT_EQ(twice, cmd + "\n" + cmd);
  // No temp files are left behind by the atomic writes.
  for (const auto& entry : fs::directory_iterator(dir))
    EXPECT_FALSE(contains(entry.path().filename().string(), ".tmp-")) << entry.path();
}

TEST(Config, RootFinishRejectsUnknownTopLevelKey) {
  Experiment e = Experiment::from_json(json{{"name", "x"}, {"sed", 3}, {"train", json::object()}}, "e.json");
  JsonReader root = e.reader();
  parse_run(root);
  root.child("train");
  std::string msg = error_of([&] { root.finish(); });
  EXPECT_PRED2(contains, msg, "e.json: unknown key \"sed\"");
  EXPECT_PRED2(contains, msg, "(did you mean \"seed\"?)");
}

TEST(Config, ClosestName) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(closest_name("hiden", {"hidden", "type", "init"}), "hidden");
  EXPECT_EQ(closest_name("learning_rate", {"lr", "momentum"}), "lr");
  EXPECT_EQ(closest_name("qqqqqq", {"lr", "momentum"}), "");
}

TEST(Cli, IntegerFlagTakesTheWholeValueInRange) {
  EXPECT_EQ(parse_int_flag("--n", "7", 1, 10), 7);
  EXPECT_EQ(parse_int_flag("--n", "0", 0, 10), 0);
  EXPECT_EQ(parse_int_flag("--n", "-3", -5, 10), -3);
  auto error = [](const std::string& v) {
    try {
      parse_int_flag("--dump-gates", v, 0, 100, "a number of test sentences");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("abc").rfind("--dump-gates expects a number of test sentences in [0, 100], got 'abc'", 0), 0u)
      << error("abc");
  for (const char* bad : {"", "5x", "101", "-1", "1.5", " 5", "99999999999999999999999"})
    EXPECT_NE(error(bad).find("got '" + std::string(bad) + "'"), std::string::npos) << "'" << bad << "'";
}

}  // namespace
}  // namespace twin
