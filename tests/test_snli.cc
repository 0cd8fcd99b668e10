// SNLI task: a smoke run of each model kind on the generated corpus (tasks/snli/snli_synthetic.h) must learn
// to use the premise: a model reading the hypothesis alone can tell contradiction ("not") but not entailment
// from neutral, so it cannot pass 2/3 accuracy; both kinds must. The confusion matrix must add up to the split.
// (Seeded, one thread: the accuracies are deterministic, 0.815 / 0.76 dev for cond / wbw when written.)
#include <gtest/gtest.h>

#include <fstream>

#include "smoke_run.h"
#include "snli_synthetic.h"
#include "snli_task.h"
#include "test_util.h"

namespace twin::snli {
namespace {

using twin::test::TempDir;

test::SmokeRun<SnliTask> smoke(const std::string& dir, const std::string& run, const std::string& kind) {
  write_synthetic_snli(dir, 3);
  std::ifstream in(std::string(TW_SOURCE_DIR) + "/experiments/smoke/snli_atr.json");
  nlohmann::json config = nlohmann::json::parse(in);
  config["data"]["dir"] = dir;
  config["out_dir"] = run;
  config["model"]["kind"] = kind;
  return test::train_smoke<SnliTask>(config, "smoke/snli_atr.json", run);
}

class SnliSmoke : public ::testing::TestWithParam<std::string> {};

TEST_P(SnliSmoke, LearnsTheGeneratedLabels) {
  TempDir data("snli_data"), run("snli_run");
  auto s = smoke(data.str(), run.str(), GetParam());
  ASSERT_EQ(s.out.stop_reason, "max_epochs");
  // The loss check only rules out a model that does not train (chance stays at ln 3); the accuracy checks
  // below separate learning from the hypothesis-only ceiling. A 0.6 factor, not 0.5: the tail reaches about
  // half the first loss, and the sanitizer build's -O1 float rounding ended at 0.558 vs 0.549 (2026-11-23).
  EXPECT_LT(test::tail_mean_loss(s.out.losses), 0.6 * s.out.losses.front()) << "training loss did not drop";
  EXPECT_GE(s.out.best.primary, 0.72) << "dev accuracy (chance 1/3, hypothesis alone at most 2/3)";
  const Metrics test = s.task->evaluate(Split::kTest);
  EXPECT_GT(test.primary, 0.7);
  long total = 0, diagonal = 0;
  const auto& conf = test.values.at("confusion_gold_by_predicted");
  for (int g = 0; g < kNumLabels; ++g)
    for (int p = 0; p < kNumLabels; ++p) {
      total += conf[g][p].get<long>();
      if (g == p) diagonal += conf[g][p].get<long>();
    }
  EXPECT_EQ(total, 200);
  EXPECT_NEAR(static_cast<double>(diagonal) / 200.0, test.primary, 1e-12);
}

INSTANTIATE_TEST_SUITE_P(Kinds, SnliSmoke, ::testing::Values("cond", "wbw"));

}  // namespace
}  // namespace twin::snli
