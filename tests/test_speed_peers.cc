// The speed task's peers (no timing asserted). The oneDNN reference LM (tasks/speed/onednn_lm.h): it starts at
// the uniform loss, its gradients match central differences group by group, its flop count and parameter count
// agree with the suite's own LSTM and GRU on the same shape, and `speed onednn` writes its report and refuses a
// config without an LSTM or GRU entry, naming the key. `speed peers` (speed_peers.h): the turn order, a sitting on
// the smoke config (every run kept, the medians and paired ratios re-derived from the runs), and its bad flags.
#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sys/wait.h>

#include "base/file_io.h"
#include "onednn_lm.h"
#include "speed_peers.h"
#include "speed_bench.h"
#include "test_util.h"
#include "train/experiment.h"

namespace twin::speed {
namespace {

namespace fs = std::filesystem;

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

TEST(SpeedPeers, TurnOrderReversesEveryOtherRound) {
  const std::vector<std::string> p = {"twinrnn", "onednn", "pytorch"};
  EXPECT_EQ(peers_round_order(p, 0), p);
  EXPECT_EQ(peers_round_order(p, 1), (std::vector<std::string>{"pytorch", "onednn", "twinrnn"}));
  EXPECT_EQ(peers_round_order(p, 2), p);
}

double median3(std::vector<double> v) {   // the median of an even or odd count, as the report's
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

TEST(SpeedPeers, SmokeSittingKeepsEveryRunAndItsMediansRederive) {
  if (!onednn_reference_available()) GTEST_SKIP() << "this build has no oneDNN (TW_WITH_DNNL off or libdnnl-dev absent)";
  const test::TempDir dir;
  const std::string out = dir.file("peers");
  const std::string cmd = std::string(TW_BIN_DIR) + "/speed peers " + TW_SOURCE_DIR +
                          "/experiments/speed/smoke.json --rounds 2 --torch off --quiet --set out=" + out + " > " +
                          dir.file("log.txt") + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << read_file(dir.file("log.txt"));
  const nlohmann::json rep = nlohmann::json::parse(read_file(out + ".json"));
  EXPECT_EQ(rep.at("programs"), (nlohmann::json{"twinrnn", "onednn"}));
  EXPECT_TRUE(test::contains(rep.at("notes").dump(), "--torch off"));
  const nlohmann::json& runs = rep.at("runs");
  ASSERT_EQ(runs.size(), 6u);   // atr: ours x 2 rounds; lstm: ours and oneDNN x 2 rounds
  std::vector<std::string> lstm_order;
  std::map<std::pair<std::string, int>, nlohmann::json> lstm;
  for (const nlohmann::json& r : runs) {
    EXPECT_TRUE(r.at("ok").get<bool>()) << r.dump();
    EXPECT_GT(r.at("peak_rss_mb").get<double>(), 1.0);
    EXPECT_TRUE(fs::exists(dir.path / "peers.runs" / r.at("report").get<std::string>())) << r.dump();
    if (r.at("cell") == "lstm") {
      lstm_order.push_back(r.at("program").get<std::string>() + std::to_string(r.at("round").get<int>()));
      lstm[{r.at("program"), r.at("round")}] = r;
    }
  }
  EXPECT_EQ(lstm_order, (std::vector<std::string>{"twinrnn1", "onednn1", "onednn2", "twinrnn2"}));
  // The oneDNN row's median and the paired ratio, recomputed from the kept runs.
  std::vector<double> ref_train, ratio;
  for (int round : {1, 2}) {
    ref_train.push_back(lstm.at({"onednn", round}).at("train_words_s"));
    ratio.push_back(lstm.at({"twinrnn", round}).at("train_words_s").get<double>() / ref_train.back());
  }
  bool seen_summary = false, seen_ratio = false;
  for (const nlohmann::json& s : rep.at("summary"))
    if (s.at("program") == "onednn" && s.at("cell") == "lstm") {
      EXPECT_DOUBLE_EQ(s.at("train_words_s").at("median").get<double>(), median3(ref_train));
      EXPECT_EQ(s.at("train_words_s").at("n"), 2);
      seen_summary = true;
    }
  for (const nlohmann::json& r : rep.at("ratios"))
    if (r.at("peer") == "onednn" && r.at("cell") == "lstm") {
      EXPECT_DOUBLE_EQ(r.at("train").at("median").get<double>(), median3(ratio));
      seen_ratio = true;
    }
  EXPECT_TRUE(seen_summary && seen_ratio) << rep.at("summary").dump();
  EXPECT_EQ(rep.at("ratios").size(), 1u);   // atr has no peer here
  const std::string md = read_file(out + ".md");
  EXPECT_TRUE(test::contains(md, "| lstm | train |")) << md;
  EXPECT_TRUE(test::contains(md, "ours / onednn")) << md;
  EXPECT_TRUE(fs::exists(out + ".csv"));
  // A second sitting into the same prefix would mix with this one's kept runs: refused, nothing touched.
  const std::string again = std::string(TW_BIN_DIR) + "/speed peers " + TW_SOURCE_DIR +
                            "/experiments/speed/smoke.json --rounds 2 --torch off --quiet --set out=" + out + " 2> " +
                            dir.file("err2.txt");
  const int rc = std::system(again.c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  EXPECT_TRUE(test::contains(read_file(dir.file("err2.txt")), "holds an earlier sitting's runs")) << read_file(dir.file("err2.txt"));
  EXPECT_EQ(nlohmann::json::parse(read_file(out + ".json")), rep);
  // --from-runs measures nothing and writes the same summary, ratios and tables from the kept runs' reports.
  nlohmann::json stripped = rep;
  stripped.erase("summary");
  stripped.erase("ratios");
  test::write_file(out + ".json", stripped.dump());
  fs::remove(out + ".md");
  const std::string rederive = std::string(TW_BIN_DIR) + "/speed peers " + TW_SOURCE_DIR +
                               "/experiments/speed/smoke.json --from-runs --set out=" + out + " > /dev/null";
  ASSERT_EQ(std::system(rederive.c_str()), 0);
  EXPECT_EQ(nlohmann::json::parse(read_file(out + ".json")), rep);
  EXPECT_EQ(read_file(out + ".md"), md);
}

TEST(SpeedPeers, BadFlagsAreNamed) {
  const test::TempDir dir;
  const std::string base = std::string(TW_BIN_DIR) + "/speed peers " + TW_SOURCE_DIR + "/experiments/speed/smoke.json " +
                           "--set out=" + dir.file("p") + " ";
  auto run = [&](const std::string& flags) {
    const int rc = std::system((base + flags + " > /dev/null 2> " + dir.file("err.txt")).c_str());
    return std::make_pair(WEXITSTATUS(rc), read_file(dir.file("err.txt")));
  };
  auto [rc1, e1] = run("--rounds 0");
  EXPECT_EQ(rc1, 2);
  EXPECT_TRUE(test::contains(e1, "--rounds")) << e1;
  auto [rc2, e2] = run("--torch /no/such/python");
  EXPECT_EQ(rc2, 2);
  EXPECT_TRUE(test::contains(e2, "--torch /no/such/python")) << e2;
  EXPECT_FALSE(fs::exists(dir.file("p.json")));   // nothing measured, nothing written
}

}  // namespace
}  // namespace twin::speed
