// The ATR authors' two PTB recipes (issue 26) as our experiment files resolve them, key by key against the
// numbers their source files use: lm/tensorflow-lm/main.py (class Config) and lm/pytorch-lm/main.py of the ATR
// repository. A changed base file or a changed default that moves any of them fails here.
#include <gtest/gtest.h>

#include <string>

#include "lm_data.h"
#include "lm_model.h"
#include "train/config.h"
#include "train/experiment.h"
#include "base/json_reader.h"

namespace twin::lm {
namespace {

struct Resolved {
  RunConfig run;
  TrainConfig train;
  LmDataConfig data;
  LmModelConfig model;
};

Resolved resolve(const std::string& file) {
  Experiment e = Experiment::load(std::string(TW_SOURCE_DIR) + "/experiments/lm/" + file);
  JsonReader root = e.reader();
  Resolved r;
  r.run = parse_run(root);
  JsonReader t = root.child("train");
  r.train = parse_train(t);
  JsonReader d = root.child("data");
  r.data = parse_lm_data(d);
  JsonReader m = root.child("model");
  r.model = parse_lm_model(m);
  root.finish();
  return r;
}

// What both recipes share: 2 x 650, dropout 0.5, uniform(±0.08) everywhere, batch 20, BPTT 35, SGD, a source.
void expect_common(const Resolved& r) {
  EXPECT_EQ(r.model.layers, 2);
  EXPECT_EQ(r.model.embed, 650);
  EXPECT_EQ(r.model.cell.hidden, 650);
  EXPECT_DOUBLE_EQ(r.model.dropout, 0.5);
  EXPECT_EQ(r.model.dropout_kind, lm::LmDropout::kStandard);
  EXPECT_DOUBLE_EQ(r.model.init_scale, 0.08);
  EXPECT_EQ(r.model.cell.init, WeightInit::kUniform);
  EXPECT_DOUBLE_EQ(r.model.cell.init_scale, 0.08);
  EXPECT_EQ(r.train.optim.name, OptimKind::kSgd);
  EXPECT_EQ(r.train.batch_size, 20);
  EXPECT_EQ(r.data.bptt, 35);
  EXPECT_FALSE(r.run.source.empty()) << "a recipe names its source";
}

TEST(LmRecipes, TensorFlowRecipeMatchesItsSource) {
  for (const std::string cell : {"atr", "atr_tanh", "lstm", "gru", "lrn"}) {
    SCOPED_TRACE(cell);
    const Resolved r = resolve(cell + "_atr_authors.json");
    expect_common(r);   // keep_prob 0.5, init_scale 0.08
    EXPECT_FALSE(r.model.tie);
    EXPECT_DOUBLE_EQ(r.train.optim.lr, 0.6);
    EXPECT_DOUBLE_EQ(r.train.optim.clip_norm, 5.0);
    EXPECT_EQ(r.train.schedule.type, ScheduleKind::kStepDecay);
    EXPECT_EQ(r.train.schedule.start_epoch, 11);   // 10 epochs at 0.6, then /1.15 per epoch
    EXPECT_NEAR(r.train.schedule.factor, 1 / 1.15, 1e-15);
    EXPECT_EQ(r.train.max_epochs, 39);
    EXPECT_EQ(r.data.loss, lm::LmLoss::kSumTimeMeanBatch);
    if (cell.rfind("atr", 0) == 0) {
      EXPECT_EQ(r.model.cell.bias, CellBias::kNone);   // the authors' ATR has no bias
    }
  }
}

TEST(LmRecipes, PyTorchRecipeMatchesItsSource) {
  for (const std::string cell : {"atr", "atr_tanh", "lstm", "gru", "lrn"}) {
    SCOPED_TRACE(cell);
    const Resolved r = resolve(cell + "_atr_authors_pytorch.json");
    expect_common(r);
    EXPECT_TRUE(r.model.tie);
    EXPECT_EQ(r.data.loss, lm::LmLoss::kMeanToken);
    EXPECT_DOUBLE_EQ(r.train.optim.lr, 20.0);
    EXPECT_DOUBLE_EQ(r.train.optim.clip_norm, 0.25);
    EXPECT_EQ(r.train.schedule.type, ScheduleKind::kPlateau);   // lr /= 4 after an epoch whose dev loss did not improve
    EXPECT_DOUBLE_EQ(r.train.schedule.factor, 0.25);
    EXPECT_EQ(r.train.schedule.patience, 0);
    EXPECT_EQ(r.train.eval_every, 0);              // dev once per epoch, as the source
    EXPECT_EQ(r.train.max_epochs, 50);
    EXPECT_EQ(r.data.eval_batch_size, 10);
    if (cell.rfind("atr", 0) == 0) {
      EXPECT_EQ(r.model.cell.bias, CellBias::kBoth);   // p = Wx + b, q = Uh + d
    }
  }
}

TEST(LmRecipes, SourceMustBeTextOnly) {
  JsonReader ok(nlohmann::json{{"name", "x"}, {"source", "one line"}}, "f.json");
  EXPECT_EQ(parse_run(ok).source, std::vector<std::string>{"one line"});
  JsonReader bad(nlohmann::json{{"name", "x"}, {"source", {1, 2}}}, "f.json");
  try {
    parse_run(bad);
    FAIL() << "a non-text source was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("source"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("f.json"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace twin::lm
