// The oneDNN reference LM of the speed task (tasks/speed/onednn_lm.h; no timing asserted): it starts at the
// uniform loss, its gradients match central differences group by group, its flop count and parameter count
// agree with the suite's own LSTM and GRU on the same shape, and `speed onednn` writes its report and refuses a
// config without an LSTM or GRU entry, naming the key.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <sys/wait.h>

#include "base/file_io.h"
#include "onednn_lm.h"
#include "speed_bench.h"
#include "test_util.h"
#include "train/experiment.h"

namespace twin::speed {
namespace {

SpeedConfig onednn_smoke(const std::vector<std::string>& overrides) {
  Experiment e = Experiment::load(std::string(TW_SOURCE_DIR) + "/experiments/speed/smoke.json", overrides);
  JsonReader r = e.reader();
  return parse_speed_config(r);
}

TEST(OnednnLm, StartsAtTheUniformLossAndItsGradientsMatchCentralDifferences) {
  if (!onednn_reference_available()) GTEST_SKIP() << "this build has no oneDNN (TW_WITH_DNNL off or libdnnl-dev absent)";
  const SpeedConfig c = onednn_smoke({});
  for (const bool lstm : {true, false}) {
    SCOPED_TRACE(lstm ? "lstm" : "gru");
    const OnednnProbe p = probe_onednn_reference(c, c.shapes.at(0), lstm, 20);
    EXPECT_NEAR(p.losses.front(), std::log(50.0), 0.05);   // U(-0.1, 0.1) weights: near-uniform softmax
    for (double l : p.losses) EXPECT_TRUE(std::isfinite(l));
    // Every group's gradient (softmax, both layers' W, U, b, the embedding's scattered rows) along its own signs,
    // with weights from U(-0.5, 0.5) so that the recurrent ones carry a gradient f32 differences can see.
    const auto checks = onednn_reference_directional_check(c, c.shapes.at(0), lstm, 1e-3, 0.5f);
    ASSERT_EQ(checks.size(), 1u + 3u * static_cast<size_t>(c.shapes[0].layers) + 2u);
    for (size_t g = 0; g < checks.size(); ++g) {
      const auto [analytic, numeric] = checks[g];
      EXPECT_NEAR(analytic, numeric, 0.02 * std::abs(numeric) + 1e-5) << "group " << g;
      EXPECT_GT(std::abs(analytic), 1e-3) << "group " << g << ": a zero gradient would pass a loose check";
    }
  }
}

TEST(OnednnLm, FlopsAndParamsMatchTheSuitesOwnCells) {
  if (!onednn_reference_available()) GTEST_SKIP() << "this build has no oneDNN (TW_WITH_DNNL off or libdnnl-dev absent)";
  const test::TempDir dir;
  const SpeedConfig c = onednn_smoke({"cells=[\"lstm\",\"gru\"]", "out=" + dir.file("ours")});
  const SpeedReport ours = run_speed(c, false);
  ASSERT_EQ(ours.records.size(), 2u);
  for (const SpeedRecord& r : ours.records) {
    SCOPED_TRACE(r.cell);
    const OnednnProbe p = probe_onednn_reference(c, c.shapes.at(0), r.cell == "lstm", 1);
    EXPECT_EQ(p.train_flops, r.train_step_flops);
    EXPECT_EQ(p.infer_flops, r.infer_step_flops);
    // oneDNN's linear-before-reset GRU has a fourth bias block (inside r ⊙ (h U_h + b')) the suite's GRU lacks.
    const Index extra = r.cell == "gru" ? static_cast<Index>(c.shapes[0].layers) * c.shapes[0].hidden : 0;
    EXPECT_EQ(p.params, r.params + extra);
  }
}

TEST(OnednnLm, CommandWritesItsReportAndNamesABadConfig) {
  if (!onednn_reference_available()) GTEST_SKIP() << "this build has no oneDNN (TW_WITH_DNNL off or libdnnl-dev absent)";
  const test::TempDir dir;
  const std::string bin = std::string(TW_BIN_DIR) + "/speed";
  const std::string smoke = std::string(TW_SOURCE_DIR) + "/experiments/speed/smoke.json";
  const std::string out = dir.file("ref");
  ASSERT_EQ(std::system((bin + " onednn " + smoke + " --quiet --set out=" + out + " > /dev/null").c_str()), 0);
  const nlohmann::json rep = nlohmann::json::parse(read_file(out + ".json"));
  EXPECT_TRUE(test::contains(rep.at("tool").get<std::string>(), "onednn"));
  ASSERT_EQ(rep.at("records").size(), 1u);   // smoke.json: atr (skipped) and lstm
  EXPECT_EQ(rep.at("records")[0].at("cell"), "lstm");
  EXPECT_GT(rep.at("records")[0].at("train_words_s").get<double>(), 0.0);
  const std::string err = dir.file("err.txt");
  nlohmann::json bad = nlohmann::json::parse(read_file(smoke));
  bad["cells"] = {"atr", "lrn"};
  const std::string bad_path = dir.write("no_lstm.json", bad.dump(2));
  const int rc = std::system((bin + " onednn " + bad_path + " --set out=" + out + " 2> " + err + " > /dev/null").c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  const std::string msg = read_file(err);
  EXPECT_TRUE(test::contains(msg, "no_lstm.json")) << msg;
  EXPECT_TRUE(test::contains(msg, "cells")) << msg;
  EXPECT_TRUE(test::contains(msg, "\"lstm\" and \"gru\"")) << msg;
}

}  // namespace
}  // namespace twin::speed
