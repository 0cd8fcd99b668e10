// The speed task on its smoke config (no timing asserted): records, parameter counts, Table 1 counts, the
// GEMM flop counter against a hand count for a tiny ATR LM, the output files, and strict config parsing; the
// NMT benchmark (speed nmt) on the smoke NMT experiment, its shaped corpus and its flags.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <unistd.h>

#include "corpus/subword.h"
#include "data/text.h"
#include "graph/param.h"
#include "lm_model.h"
#include "nmt_bench.h"
#include "nmt_shaped_corpus.h"
#include "ops/dnnl_rnn.h"
#include "ops/linalg.h"
#include "rnn/cell_factory.h"
#include "speed_bench.h"
#include "test_util.h"
#include "train/experiment.h"
#include "train/records_csv.h"
#include "train/run_dir.h"

namespace twin::speed {
namespace {

namespace fs = std::filesystem;
using test::contains;
using test::error_of;

std::string smoke_path() { return std::string(TW_SOURCE_DIR) + "/experiments/speed/smoke.json"; }

SpeedConfig load(const std::string& path, const std::vector<std::string>& overrides) {
  Experiment e = Experiment::load(path, overrides);
  JsonReader r = e.reader();
  return parse_speed_config(r);
}


// GEMM flops (2mnk each) of one training step of the LM with ATR cells, counted by hand from the graph:
// forward  input projection per layer [N,I]x[I,H], T recurrent products [B,H]x[H,H] per layer, softmax
//          [N,H]x[H,V];
// backward softmax dx and dW; per layer projection dW and dx (layer 0's input is the embedding output,
//          which needs a gradient); per layer T recurrent dU products and T-1 dh_prev products (the state
//          entering step 0 is a constant: zeros or the detached carried state).
std::uint64_t atr_train_flops(std::uint64_t E, std::uint64_t H, std::uint64_t L, std::uint64_t V, std::uint64_t T,
                              std::uint64_t B) {
  const std::uint64_t N = T * B;
  std::uint64_t f = 3 * (2 * N * H * V);
  for (std::uint64_t l = 0; l < L; ++l) {
    const std::uint64_t I = l == 0 ? E : H;
    f += 3 * (2 * N * I * H);
    f += (T + T + (T - 1)) * (2 * B * H * H);
  }
  return f;
}
std::uint64_t atr_infer_flops(std::uint64_t E, std::uint64_t H, std::uint64_t L, std::uint64_t V, std::uint64_t T,
                              std::uint64_t B) {
  const std::uint64_t N = T * B;
  std::uint64_t f = 2 * N * H * V;
  for (std::uint64_t l = 0; l < L; ++l) f += 2 * N * (l == 0 ? E : H) * H + T * 2 * B * H * H;
  return f;
}

TEST(Speed, GemmFlopCounterCountsTwoMnk) {
  Mat a = Mat::Ones(3, 4), b = Mat::Ones(4, 5), c(3, 5);
  reset_gemm_flops();
  gemm(a, false, b, false, c);
  EXPECT_EQ(gemm_flops(), 2u * 3 * 4 * 5);
  EXPECT_FLOAT_EQ(c(2, 4), 4.0f);   // the counter does not touch the result
  Mat ct(4, 4);
  gemm(a, true, a, false, ct);      // [4,3] x [3,4]
  EXPECT_EQ(gemm_flops(), 2u * 3 * 4 * 5 + 2u * 4 * 3 * 4);
  reset_gemm_flops();
  EXPECT_EQ(gemm_flops(), 0u);
}

TEST(Speed, SmokeConfigRecordsAndFiles) {
  const fs::path dir = fs::temp_directory_path() / ("twin_speed_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string out = (dir / "sub" / "smoke").string();
  const SpeedConfig cfg = load(smoke_path(), {"out=" + out});
  ASSERT_EQ(cfg.cells.size(), 2u);
  EXPECT_EQ(cfg.cells[0].name, "atr");
  EXPECT_EQ(cfg.cells[1].name, "lstm");
  EXPECT_FALSE(cfg.cells[0].object);
  EXPECT_EQ(cfg.cells[1].cell.type, "lstm");
  ASSERT_EQ(cfg.shapes.size(), 1u);
  const SpeedShape& s = cfg.shapes[0];
  const SpeedReport rep = run_speed(cfg);
  ASSERT_EQ(rep.records.size(), cfg.cells.size() * cfg.shapes.size() * cfg.threads.size());

  for (size_t i = 0; i < rep.records.size(); ++i) {
    const SpeedRecord& r = rep.records[i];
    SCOPED_TRACE(r.cell);
    ASSERT_EQ(r.cell, cfg.cells[i].name);   // one shape, one thread count: records in cells order
    EXPECT_GT(r.train_words_s, 0);
    EXPECT_GT(r.infer_words_s, 0);
    EXPECT_GT(r.train_gflops, 0);
    EXPECT_GT(r.peak_rss_mb, 0);
    EXPECT_TRUE(r.finite);
    EXPECT_GE(r.fma_peak_gflops, 0);
#ifdef __FMA__
    EXPECT_GT(r.fma_peak_gflops, 0);
    EXPECT_NEAR(r.peak_fraction, r.train_gflops / r.fma_peak_gflops, 1e-12);
#endif
    // The peak is the widest vectors' (issue 56): 512-bit on a CPU with AVX-512F, the 256-bit figure beside it.
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
      EXPECT_EQ(r.fma_peak_bits, __builtin_cpu_supports("avx512f") ? 512 : 256);
      EXPECT_GT(r.fma_peak_256_gflops, 0);
      if (r.fma_peak_bits == 256) {
        EXPECT_EQ(r.fma_peak_gflops, r.fma_peak_256_gflops);
      }
    }
    // Parameters: the model's own ParamStore, built the same way, and the closed form.
    ParamStore store(cfg.seed);
    lm::LmModelConfig mc;
    mc.embed = s.embed;
    mc.layers = s.layers;
    mc.cell = cfg.cells[i].cell;
    mc.cell.hidden = s.hidden;
    lm::LmModel model(mc, cfg.vocab, store);
    EXPECT_EQ(r.params, store.total_size());
    Index closed = static_cast<Index>(cfg.vocab) * s.embed + static_cast<Index>(s.hidden) * cfg.vocab + cfg.vocab;
    for (int l = 0; l < s.layers; ++l) closed += model.cell(l).expected_params();
    EXPECT_EQ(r.params, closed);
    const CellInfo info = model.cell(0).info();
    EXPECT_EQ(r.weight_matrices, info.weight_matrices);
    EXPECT_EQ(r.matrix_transformations, info.matrix_transformations);
    EXPECT_GT(r.train_step_flops, r.infer_step_flops);
  }
  const SpeedRecord& atr = rep.records[0];
  ASSERT_EQ(atr.cell, "atr");
  EXPECT_EQ(atr.weight_matrices, 2);   // Table 1
  EXPECT_EQ(atr.matrix_transformations, 2);
  EXPECT_EQ(atr.train_step_flops, atr_train_flops(16, 16, 2, 50, 5, 4));
  EXPECT_EQ(atr.infer_step_flops, atr_infer_flops(16, 16, 2, 50, 5, 4));

  write_speed_report(cfg, rep);
  ASSERT_TRUE(file_exists(out + ".json"));
  ASSERT_TRUE(file_exists(out + ".md"));
  const nlohmann::json j = nlohmann::json::parse(read_file(out + ".json"));
  ASSERT_EQ(j.at("records").size(), rep.records.size());
  EXPECT_EQ(j.at("records")[1].at("cell"), "lstm");
  EXPECT_EQ(j.at("records")[0].at("train_step_flops").get<std::uint64_t>(), atr.train_step_flops);
  EXPECT_GT(j.at("machine").at("cores").get<int>(), 0);
  EXPECT_FALSE(j.at("machine").at("cpu").get<std::string>().empty());
  const std::string md = read_file(out + ".md");
  EXPECT_NE(md.find("| atr | "), std::string::npos);
  EXPECT_NE(md.find("| lstm | "), std::string::npos);
  EXPECT_NE(md.find("## tiny"), std::string::npos);
  // The CSV: header with the leading columns first, then one line per record in run order.
  const std::string csv = read_file(out + ".csv");
  EXPECT_EQ(csv.rfind("shape,cell,threads,", 0), 0u) << csv.substr(0, 80);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), static_cast<long>(rep.records.size()) + 1);
  EXPECT_NE(csv.find("\ntiny,lstm,"), std::string::npos);
  fs::remove_all(dir);
}

TEST(Speed, RecordsCsvHandCase) {
  const nlohmann::json recs = nlohmann::json::parse(
      R"([{"cell": "atr", "b": 1.5, "a": "x,y", "ok": true},
          {"cell": "gru", "a": "say \"hi\"", "z": null, "b": 2}])");
  // "cell" first as asked, then the rest sorted; missing and null cells empty; quoting per RFC 4180.
  EXPECT_EQ(records_csv(recs, {"cell", "absent"}),
            "cell,a,b,ok,z\n"
            "atr,\"x,y\",1.5,true,\n"
            "gru,\"say \"\"hi\"\"\",2,,\n");
  EXPECT_EQ(records_csv(nlohmann::json::array()), "\n");
  EXPECT_THROW(records_csv(nlohmann::json::parse(R"([{"a": [1]}])")), Error);
  EXPECT_THROW(records_csv(nlohmann::json::parse(R"([1])")), Error);
  const nlohmann::json bench = {{"rows", nlohmann::json::array({{{"cell", "atr"}}, {{"cell", "gru"}}})}};
  EXPECT_EQ(report_records(bench, "nmt.json").size(), 2u);
  EXPECT_EQ(report_records(bench, "nmt.json")[1].at("cell"), "gru");
  EXPECT_THROW(report_records(nlohmann::json{{"other", 1}}, "f.json"), Error);
}

TEST(Speed, MarkdownShowsPaperRatiosWhenAtrGruLstmPresent) {
  SpeedConfig cfg;
  cfg.out = "unused";
  SpeedReport rep;
  rep.machine = {{"cores", 2}, {"cpu", "test cpu"}, {"date", "2026-01-01"}};
  for (auto [cell, w] : std::vector<std::pair<std::string, double>>{{"lstm", 1000}, {"gru", 1500}, {"atr", 2000}}) {
    SpeedRecord r;
    r.cell = cell;
    r.shape = "small";
    r.threads = 1;
    r.train_words_s = w;
    rep.records.push_back(r);
  }
  const std::string md = report_markdown(cfg, rep);
  EXPECT_NE(md.find("2,000 : 1,500 : 1,000 (2.00 : 1.50 : 1.00)"), std::string::npos) << md;
  EXPECT_NE(md.find("2,518 : 1,996 : 1,919 (1.31 : 1.04 : 1.00)"), std::string::npos) << md;
}

TEST(Speed, ConfigIsStrict) {
  EXPECT_THROW(load(smoke_path(), {"window=3"}), Error);                // unknown key (typo of windows)
  EXPECT_THROW(load(smoke_path(), {"cells=[\"atr\",\"lstn\"]"}), Error);  // unknown cell
  EXPECT_THROW(load(smoke_path(), {"threads=[0]"}), Error);
  EXPECT_THROW(load(smoke_path(), {"threads=[]"}), Error);
  EXPECT_THROW(load(smoke_path(), {"shapes=[{\"name\":\"x\",\"embed\":8}]"}), Error);   // no hidden
  EXPECT_THROW(load(smoke_path(), {"shapes=[{\"name\":\"x\",\"embed\":8,\"hidden\":8,\"depth\":2}]"}), Error);
  EXPECT_NO_THROW(load(smoke_path(), {"rss_steps=10"}));
  // Each error names its path, as every ConfigTable section's do.
  auto err = [](const std::string& set) { return error_of([&] { load(smoke_path(), {set}); }); };
  std::string m = err("window=3");
  EXPECT_PRED2(contains, m, "unknown key \"window\"");
  EXPECT_PRED2(contains, m, "did you mean \"windows\"");
  EXPECT_PRED2(contains, err("threads=[0]"), "\"threads\" entries must be integers in [1, 1024], got 0");
  EXPECT_PRED2(contains, err("vocab=1"), "\"vocab\"");
  EXPECT_PRED2(contains, err("seed=-1"), "\"seed\"");
  EXPECT_PRED2(contains, err("out=\"\""), "\"out\" must be a non-empty output prefix");
  EXPECT_PRED2(contains, err("shapes=[{\"name\":\"x\",\"embed\":8,\"hidden\":8,\"depth\":2}]"),
               "unknown key \"shapes[0].depth\"");
  EXPECT_PRED2(contains, err("cells=[]"), "\"cells\" must be a non-empty list");
  try {
    load(smoke_path(), {"cells=[\"atr\",\"lstn\"]"});
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("lstm"), std::string::npos) << e.what();   // did-you-mean
  }
}

// "cells" entries as objects: the label, the cell config parsed by the rnn module's parser, written back by
// to_json (names stay strings) and parsed again to the same config.
TEST(Speed, CellObjectEntriesParse) {
  const SpeedConfig cfg = load(
      smoke_path(), {R"(cells=["atr", {"name": "atr+ln", "cell": {"type": "atr", "layer_norm": true}},
                                {"name": "lrn tanh-less", "cell": {"type": "lrn", "output": "identity"}}])"});
  ASSERT_EQ(cfg.cells.size(), 3u);
  EXPECT_EQ(cfg.cells[0].name, "atr");
  EXPECT_FALSE(cfg.cells[0].object);
  EXPECT_EQ(to_json(cfg.cells[0].cell), to_json(CellConfig{}));   // a bare name: every default
  EXPECT_EQ(cfg.cells[1].name, "atr+ln");
  EXPECT_TRUE(cfg.cells[1].object);
  EXPECT_EQ(cfg.cells[1].cell.type, "atr");
  EXPECT_TRUE(cfg.cells[1].cell.layer_norm);
  EXPECT_EQ(cfg.cells[1].cell.hidden, 0);                          // each shape fills it
  EXPECT_EQ(cfg.cells[2].cell.type, "lrn");
  EXPECT_EQ(cfg.cells[2].cell.output, CellOutput::kIdentity);
  EXPECT_FALSE(cfg.cells[2].cell.layer_norm);

  const nlohmann::json j = to_json(cfg);
  EXPECT_EQ(j.at("cells")[0], "atr");
  EXPECT_EQ(j.at("cells")[1].at("name"), "atr+ln");
  EXPECT_EQ(j.at("cells")[1].at("cell").at("layer_norm"), true);
  EXPECT_FALSE(j.at("cells")[1].at("cell").contains("hidden"));
  JsonReader again(j, "report.json");
  EXPECT_EQ(to_json(parse_speed_config(again)), j);
  // The plain config still writes plain names.
  EXPECT_EQ(to_json(load(smoke_path(), {})).at("cells"), (nlohmann::json{"atr", "lstm"}));
  // The repository's layer-norm experiment parses (only cells that accept layer_norm have a +ln entry).
  const SpeedConfig ln = load(std::string(TW_SOURCE_DIR) + "/experiments/speed/layer_norm.json", {});
  for (const SpeedCell& c : ln.cells) {
    const bool plus_ln = c.name.size() > 3 && c.name.compare(c.name.size() - 3, 3, "+ln") == 0;
    EXPECT_EQ(c.cell.layer_norm, plus_ln) << c.name;
    if (plus_ln) {
      EXPECT_EQ(c.name, c.cell.type + "+ln");
    }
  }
  // Issue 56's oneDNN experiment: each "+dnnl" entry is its plain cell with kernel = "dnnl" (rnn/dnnl_layer.h).
  // A build without oneDNN refuses the file, naming the option and the build flag.
  const std::string dnnl_json = std::string(TW_SOURCE_DIR) + "/experiments/speed/dnnl_rnn.json";
  if (!dnnl_rnn_available()) {
    const std::string m = error_of([&] { load(dnnl_json, {}); });
    EXPECT_PRED2(contains, m, "kernel='dnnl' needs a build with oneDNN");
    EXPECT_PRED2(contains, m, "TW_WITH_DNNL=ON");
    return;
  }
  const SpeedConfig dn = load(dnnl_json, {});
  ASSERT_EQ(dn.cells.size(), 4u);
  for (const SpeedCell& c : dn.cells) {
    EXPECT_EQ(c.cell.kernel == CellKernel::kDnnl, c.name == c.cell.type + "+dnnl") << c.name;
    CellConfig plain = c.cell;
    plain.kernel = CellKernel::kSuite;
    EXPECT_EQ(to_json(plain), to_json(CellConfig{.type = c.cell.type})) << c.name;
  }
}

TEST(Speed, CellObjectEntriesAreStrict) {
  auto err = [](const std::string& cells) { return error_of([&] { load(smoke_path(), {"cells=" + cells}); }); };
  // An unknown key inside "cell": named by its full path, with the did-you-mean.
  std::string m = err(R"(["atr", {"name": "atr+ln", "cell": {"type": "atr", "layr_norm": true}}])");
  EXPECT_PRED2(contains, m, "unknown key \"cells[1].cell.layr_norm\"");
  EXPECT_PRED2(contains, m, "did you mean \"layer_norm\"");
  // A wrong value inside "cell" is the cell parser's error at its path.
  m = err(R"([{"name": "x", "cell": {"type": "atr", "layer_norm": 1}}])");
  EXPECT_PRED2(contains, m, "\"cells[0].cell.layer_norm\"");
  m = err(R"([{"name": "x", "cell": {"type": "atrr"}}])");
  EXPECT_PRED2(contains, m, "\"cells[0].cell.type\"");
  // Duplicate labels, among objects and against a bare name.
  m = err(R"([{"name": "a", "cell": {"type": "atr"}}, "lstm", {"name": "a", "cell": {"type": "lrn"}}])");
  EXPECT_PRED2(contains, m, "\"cells[2]\" repeats the label 'a' of cells[0]");
  m = err(R"(["atr", {"name": "atr", "cell": {"type": "atr"}}])");
  EXPECT_PRED2(contains, m, "\"cells[1]\" repeats the label 'atr'");
  // A missing or empty label, a missing cell, an unknown key beside them, an entry of another type.
  m = err(R"([{"cell": {"type": "atr", "layer_norm": true}}])");
  EXPECT_PRED2(contains, m, "missing required key \"cells[0].name\"");
  m = err(R"([{"name": "", "cell": {"type": "atr"}}])");
  EXPECT_PRED2(contains, m, "\"cells[0].name\" must be a non-empty label");
  m = err(R"([{"name": "atr+ln"}])");
  EXPECT_PRED2(contains, m, "\"cells[0].cell\" is required");
  m = err(R"([{"name": "atr+ln", "cell": {"type": "atr"}, "label": "x"}])");
  EXPECT_PRED2(contains, m, "unknown key \"cells[0].label\"");
  m = err(R"(["atr", 3])");
  EXPECT_PRED2(contains, m, "\"cells[1]\" must be a registered cell name or an object");
  // hidden belongs to the shapes.
  m = err(R"([{"name": "x", "cell": {"type": "atr", "hidden": 64}}])");
  EXPECT_PRED2(contains, m, "\"cells[0].cell.hidden\" is set by each shape");
  // A registered name as the label of another cell would mislabel the ATR : GRU : LSTM line.
  m = err(R"([{"name": "atr", "cell": {"type": "atr", "layer_norm": true}}])");
  EXPECT_PRED2(contains, m, "\"cells[0].name\" 'atr' is a registered cell's name");
  EXPECT_NO_THROW(load(smoke_path(), {R"(cells=[{"name": "atr", "cell": {"type": "atr"}}])"}));
  // An option the cell type lacks fails while parsing, before any timing.
  m = err(R"(["atr", {"name": "lstm+ln", "cell": {"type": "lstm", "layer_norm": true}}])");
  EXPECT_PRED2(contains, m, "\"cells[1].cell\" cannot be built for shape 'tiny'");
  EXPECT_PRED2(contains, m, "layer_norm");
  m = err(R"([{"name": "gru+ln", "cell": {"type": "gru", "layer_norm": true}}])");
  EXPECT_PRED2(contains, m, "cannot be built");
}

// A layer-norm entry runs under its label, with the same Table 1 counts and GEMM flops as the plain cell
// (layer norm is elementwise) and, per layer, the layer norms' gains and biases in place of the plain bias:
//   ATR: ln_p_g, ln_p_b, ln_q_g, ln_q_b [1,H] (4H) replace b [1,H] (layer_norm's default bias is none): +3H;
//   LRN: ln_g, ln_b [1,3H] (6H) replace b [1,3H]: +3H.
TEST(Speed, LayerNormEntryRunsUnderItsLabel) {
  const SpeedConfig cfg = load(
      smoke_path(), {R"(cells=["atr", {"name": "atr+ln", "cell": {"type": "atr", "layer_norm": true}},
                                "lrn", {"name": "lrn+ln", "cell": {"type": "lrn", "layer_norm": true}}])",
                     "warmup_steps=0", "windows=1", "steps_per_window=1", "out=/tmp/unused"});
  const SpeedShape& s = cfg.shapes[0];
  const SpeedReport rep = run_speed(cfg);
  ASSERT_EQ(rep.records.size(), 4u);
  const Index per_layer = 3 * static_cast<Index>(s.hidden);
  for (size_t i : {0u, 2u}) {
    const SpeedRecord &plain = rep.records[i], &ln = rep.records[i + 1];
    SCOPED_TRACE(ln.cell);
    EXPECT_EQ(ln.cell, plain.cell + "+ln");
    EXPECT_EQ(ln.shape, "tiny");
    EXPECT_TRUE(ln.finite);
    EXPECT_GT(ln.train_words_s, 0);
    EXPECT_GT(ln.params, plain.params);
    EXPECT_EQ(ln.params - plain.params, s.layers * per_layer);   // 2 x 3 x 16 = 96
    EXPECT_EQ(ln.weight_matrices, plain.weight_matrices);
    EXPECT_EQ(ln.matrix_transformations, plain.matrix_transformations);
    EXPECT_EQ(ln.train_step_flops, plain.train_step_flops);
    EXPECT_EQ(ln.infer_step_flops, plain.infer_step_flops);
  }
  EXPECT_EQ(rep.records[1].params - rep.records[0].params, 96);
  const std::string md = report_markdown(cfg, rep);
  EXPECT_PRED2(contains, md, "| atr+ln | ");
  EXPECT_PRED2(contains, md, "| lrn+ln | ");
  const nlohmann::json j = report_json(cfg, rep);
  EXPECT_EQ(j.at("records")[1].at("cell"), "atr+ln");
  EXPECT_EQ(j.at("config").at("cells")[1].at("cell").at("layer_norm"), true);
  EXPECT_PRED2(contains, records_csv(j.at("records"), kCsvFirst), "\ntiny,lrn+ln,1,");
}

TEST(Speed, RssCheckRecordsBothPoints) {
  SpeedConfig cfg = load(smoke_path(), {"cells=[\"atr\"]", "rss_steps=8", "windows=1", "steps_per_window=1",
                                        "out=/tmp/unused"});
  const SpeedReport rep = run_speed(cfg);
  ASSERT_EQ(rep.records.size(), 1u);
  EXPECT_EQ(rep.records[0].rss_steps, 8);
  EXPECT_GT(rep.records[0].rss_step100_mb, 0);   // min(100, rss_steps) = step 8
  EXPECT_GT(rep.records[0].rss_final_mb, 0);
}

// speed nmt --shaped-corpus: the corpus must have the shape it promises (line counts, lengths within
// mean +- 40 %, per-side word-level SentencePiece models of exactly the asked size) and be the same for a seed.
TEST(Speed, NmtShapedCorpusHasTheAskedShapeAndIsSeeded) {
  test::TempDir a("shaped_a"), b("shaped_b");
  write_shaped_parallel(a.str(), 5, 600, 40, 300, 10);
  write_shaped_parallel(b.str(), 5, 600, 40, 300, 10);
  for (const char* side : {"src", "tgt"}) {
    for (const auto& [split, n] : std::vector<std::pair<std::string, size_t>>{{"train", 600}, {"val", 40}, {"test", 40}}) {
      const std::string f = "/" + split + ".tok." + side;
      const auto lines = read_lines(a.str() + f);
      ASSERT_EQ(lines.size(), n) << f;
      EXPECT_EQ(lines, read_lines(b.str() + f)) << f << ": same seed, different corpus";
      if (split != "train") continue;
      double words = 0;
      for (const auto& l : lines) {
        const auto w = split_whitespace(l);
        EXPECT_GE(w.size(), 6u) << f << ": " << l;
        EXPECT_LE(w.size(), 14u) << f << ": " << l;
        words += static_cast<double>(w.size());
      }
      EXPECT_NEAR(words / static_cast<double>(n), 10.0, 0.5) << f;
    }
    nmt::Subword sp(a.str() + "/spm/" + side + ".model");
    EXPECT_EQ(sp.size(), 300) << side;
    // Word-level pieces: a line encodes to at most one piece per word plus unknowns' pieces, never split words.
    const auto first = read_lines(a.str() + "/train.tok." + side).front();
    EXPECT_LE(sp.encode(first).size(), split_whitespace(first).size()) << first;
  }
}

// `speed nmt` on its command line; returns nmt_bench_main's result (a twin::Error propagates).
int run_nmt_bench(std::vector<std::string> args) {
  args.insert(args.begin(), "nmt");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return nmt_bench_main(static_cast<int>(argv.size()), argv.data());
}

// speed nmt end to end without prepared data: the NMT smoke experiment on a small shaped corpus gives one row
// per cell and the three files, whose "command" reruns it in the form it has had since issue 28.
TEST(Speed, NmtBenchRunsOnAShapedCorpusAndWritesItsReport) {
  test::TempDir d("nmt_bench");
  const std::string out = d.str() + "/nb";
  ASSERT_EQ(run_nmt_bench({std::string(TW_SOURCE_DIR) + "/experiments/smoke/nmt_atr.json", "--cells", "atr,gru",
                           "--shaped-corpus", "300", "--shaped-pairs", "200", "--steps", "2", "--sentences", "5",
                           "--out", out}),
            0);
  const nlohmann::json j = parse_json_text(read_file(out + ".json"), out + ".json");
  ASSERT_EQ(j.at("rows").size(), 2u);
  EXPECT_EQ(j.at("rows")[1].at("cell"), "gru");
  EXPECT_EQ(j.at("rows")[0].at("src_vocab"), 300);
  for (const char* k : {"train_tokens_s", "decode_tokens_s_beam1", "decode_tokens_s_beam10", "decode_rows_s_beam1",
                        "decode_rows_s_beam10", "decode_rows_s_fixed_beam1", "decode_rows_s_fixed_beam10"})
    EXPECT_GT(j.at("rows")[0].at(k).get<double>(), 0) << k;
  // At max length both cells advance the same rows (the same sources, EOS forbidden).
  for (const char* k : {"decode_rows_fixed_beam1", "decode_rows_fixed_beam10", "decode_steps_fixed_beam10"})
    EXPECT_EQ(j.at("rows")[0].at(k), j.at("rows")[1].at(k)) << k;
  for (const auto& r : j.at("rows")) {
    // Greedy: one row per emitted piece but the EOS of a sentence stopped by the max-length rule, so at most the
    // tokens, and at least the tokens less one per sentence. Beam 10 advances at most 10 rows per sentence a step.
    const long tokens = r.at("decode_target_tokens_beam1").get<long>(), rows = r.at("decode_rows_beam1").get<long>();
    EXPECT_LE(rows, tokens) << r.at("cell");
    EXPECT_GE(rows, tokens - 5) << r.at("cell");
    EXPECT_LE(r.at("decode_rows_beam10").get<long>(), 10 * 5 * r.at("decode_steps_beam10").get<long>()) << r.at("cell");
  }
  EXPECT_TRUE(j.at("command").get<std::string>().starts_with("build/bin/speed nmt ")) << j.at("command");
  EXPECT_PRED2(contains, read_file(out + ".md"), "| atr |");
  EXPECT_PRED2(contains, read_file(out + ".csv"), "\natr,");
}

TEST(Speed, NmtBenchBadFlagsGiveClearErrors) {
  EXPECT_PRED2(contains, error_of([] { run_nmt_bench({}); }), "no experiment file given; usage: speed nmt");
  EXPECT_PRED2(contains, error_of([] { run_nmt_bench({"x.json", "--frobnicate"}); }), "unknown option '--frobnicate'");
  EXPECT_PRED2(contains, error_of([] { run_nmt_bench({"x.json", "--steps", "0"}); }), "--steps");
  EXPECT_PRED2(contains, error_of([] { run_nmt_bench({"x.json", "--out"}); }), "--out needs a value");
}

}  // namespace
}  // namespace twin::speed
