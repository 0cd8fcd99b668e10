// Cells in the float build: float agrees with the committed double golden file, the whole-sequence
// projection equals per-step projection, a padded batch equals each sequence alone (both directions),
// parameter counts equal each header's closed form, Table 1, the factory's errors, gate recording.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "ops/ops.h"
#include "rnn/cell_factory.h"
#include "cell_variants.h"
#include "rnn/rnn.h"
#include "rnn/stacked.h"
#include "test_util.h"

namespace twin {
namespace {

using test::max_abs_diff;
using test::sequence_rows;
using test::time_major_mask;
using test::uniform_mat;

constexpr int kI = 3, kH = 2;
constexpr Index kT = 4, kB = 2;

CellConfig variant(const std::string& name, int hidden = kH) { return cell_variant(name, hidden); }

std::vector<std::string> all_variant_names() {
  std::vector<std::string> out;
  for (const auto& v : cell_variants(kH)) out.push_back(v.name);
  return out;
}

std::unique_ptr<Cell> make(const CellConfig& cfg, ParamStore& store, int input_dim = kI) {
  CellConfig c = cfg;
  c.init_scale = 0.5;   // bigger than the default 0.08 so the comparisons below see non-trivial values
  return make_cell(c, input_dim, store, "enc/fwd");
}

class CellTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CellTest, WholeSequenceProjectionEqualsPerStepProjection) {
  ParamStore store(2);
  auto cell = make(variant(GetParam()), store);
  const Mat xv = uniform_mat(kT * kB, kI, 3);
  Graph g(Mode::kInfer);
  Var x = g.constant(xv);
  // A non-zero initial state: T-GRU ignores its input and would otherwise stay at exactly zero.
  const CellState init{g.constant(uniform_mat(kB, kH, 4)),
                       cell->has_memory() ? g.constant(uniform_mat(kB, kH, 5)) : Var{}};
  SeqOut whole = run_rnn(*cell, x, Mat(), kB, Dir::kForward, init);
  if (cell->name() == "qrnn" && cell->k() == 6) {   // width 2 reads the step before: it refuses to step alone
    EXPECT_THROW(cell->step(cell->project_inputs(slice_rows(x, 0, kB)), init), Error);
    return;
  }
  CellState s = init;
  for (Index t = 0; t < kT; ++t) {
    Var xt = slice_rows(x, t * kB, kB);
    s = cell->step(cell->k() > 0 ? cell->project_inputs(xt) : Var{}, s);
    EXPECT_LT(max_abs_diff(s.h.val(), whole.h_all.val().middleRows(t * kB, kB)), 1e-6) << "step " << t;
  }
  EXPECT_GT(whole.h_all.val().cwiseAbs().maxCoeff(), 1e-3);   // not a vacuous all-zero comparison
}

TEST_P(CellTest, PaddedBatchEqualsEachSequenceAloneBothDirections) {
  ParamStore store(2);
  auto cell = make(variant(GetParam()), store);
  const std::vector<Index> lengths{4, 2};
  const Mat xv = uniform_mat(kT * kB, kI, 5), h0 = uniform_mat(kB, kH, 6), c0 = uniform_mat(kB, kH, 7);
  for (Dir dir : {Dir::kForward, Dir::kBackward}) {
    SCOPED_TRACE(dir == Dir::kForward ? "forward" : "backward");
    Graph g(Mode::kInfer);
    auto init = [&](const Mat& h, const Mat& c) {
      return CellState{g.constant(h), cell->has_memory() ? g.constant(c) : Var{}};
    };
    SeqOut batch = run_rnn(*cell, g.constant(xv), time_major_mask(kT, lengths), kB, dir, init(h0, c0));
    for (Index b = 0; b < kB; ++b) {
      const Index n = lengths[static_cast<size_t>(b)];
      SeqOut alone = run_rnn(*cell, g.constant(sequence_rows(xv, b, kB, n)), Mat(), 1, dir,
                             init(h0.row(b), c0.row(b)));
      EXPECT_LT(max_abs_diff(sequence_rows(batch.h_all.val(), b, kB, n), alone.h_all.val()), 1e-6) << "seq " << b;
      EXPECT_LT(max_abs_diff(batch.last.h.val().row(b), alone.last.h.val()), 1e-6) << "seq " << b;
      if (cell->has_memory()) {
        EXPECT_LT(max_abs_diff(batch.last.c.val().row(b), alone.last.c.val()), 1e-6) << "seq " << b;
      }
    }
  }
}

TEST_P(CellTest, StoredParameterCountEqualsClosedForm) {
  for (int input_dim : {kI, kH, 5}) {   // kH: the I == H paths (SRU's highway)
    ParamStore store(1);
    auto cell = make(variant(GetParam()), store, input_dim);
    EXPECT_EQ(store.total_size(), cell->expected_params()) << "I = " << input_dim;
    for (const auto& p : store.all())
      EXPECT_EQ(p->name.rfind("enc/fwd/" + cell->name() + "/", 0), 0u) << p->name;
  }
}

TEST_P(CellTest, GateRecordingOffByDefaultOnePerStepWhenOn) {
  ParamStore store(2);
  auto cell = make(variant(GetParam()), store);
  Graph g(Mode::kInfer);
  Var x = g.constant(uniform_mat(kT * kB, kI, 8));
  EXPECT_TRUE(run_rnn(*cell, x, Mat(), kB, Dir::kForward).gates.empty());
  for (Dir dir : {Dir::kForward, Dir::kBackward}) {
    SeqOut out = run_rnn(*cell, x, time_major_mask(kT, {4, 2}), kB, dir, {}, true);
    EXPECT_EQ(out.gates.empty(), cell->name() == "srnn" || cell->name() == "indrnn");   // no gates
    for (const auto& [name, seq] : out.gates) {
      ASSERT_EQ(seq.size(), static_cast<size_t>(kT)) << name;
      for (const Mat& m : seq) {
        EXPECT_EQ(m.rows(), kB);
        EXPECT_EQ(m.cols(), kH);
        EXPECT_GE(m.minCoeff(), 0) << name << " is a sigmoid gate";
        EXPECT_LE(m.maxCoeff(), 1) << name << " is a sigmoid gate";
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllVariants, CellTest, ::testing::ValuesIn(all_variant_names()));

TEST(CellGates, NamesPerCell) {
  const std::map<std::string, std::vector<std::string>> want = {
      {"atr", {"f", "i"}},       {"lrn", {"f", "i"}},      {"gru", {"r", "z"}},  {"lstm", {"f", "i", "o"}},
      {"ran", {"f", "i"}},       {"olrn", {"f", "i", "o"}}, {"sru", {"f", "r"}},  {"lgru", {"l", "r", "z"}},
      {"tgru", {"r", "z"}},      {"dt", {"l", "r", "t1/r", "t1/z", "z"}},         {"srnn", {}},
      {"mingru", {"f", "i"}},    {"minlstm", {"f", "i"}},   {"qrnn", {"f", "o"}}, {"indrnn", {}},
      {"hgrn", {"f"}}};
  for (const auto& [type, names] : want) {
    ParamStore store;
    auto cell = make(variant(type), store);
    Graph g(Mode::kInfer);
    SeqOut out = run_rnn(*cell, g.constant(uniform_mat(kT * kB, kI, 1)), Mat(), kB, Dir::kForward, {}, true);
    std::vector<std::string> got;
    for (const auto& kv : out.gates) got.push_back(kv.first);
    EXPECT_EQ(got, names) << type;
  }
}

TEST(CellGates, RecordedInTimeOrderInBothDirections) {
  // ATR without a recurrent bias, from h = 0: the first processed step has i = σ(p). Forward that is
  // time 0; backward it is time T-1, and run_rnn must still store it at index T-1.
  ParamStore store(2);
  auto cell = make(variant("atr"), store);
  Graph g(Mode::kInfer);
  Var x = g.constant(uniform_mat(kT * kB, kI, 9));
  const Mat p = cell->project_inputs(x).val();
  SeqOut fwd = run_rnn(*cell, x, Mat(), kB, Dir::kForward, {}, true);
  SeqOut bwd = run_rnn(*cell, x, Mat(), kB, Dir::kBackward, {}, true);
  EXPECT_LT(max_abs_diff(fwd.gates.at("i")[0], sigmoid(Mat(p.topRows(kB)))), 1e-6);
  EXPECT_LT(max_abs_diff(bwd.gates.at("i")[kT - 1], sigmoid(Mat(p.bottomRows(kB)))), 1e-6);
}

// ---------------------------------------------------------------------------------------------------------

TEST(CellParams, ClosedFormsAtFixedSizes) {
  // Hand-computed counts at I = 5, H = 4 (DESIGN §6), independent of expected_params().
  const std::map<std::string, Index> want = {
      {"atr", 5 * 4 + 16 + 4},            {"atr_bias_both", 5 * 4 + 16 + 8}, {"atr_bias_none", 5 * 4 + 16},
      {"gru", 3 * 20 + 3 * 16 + 12},      {"lstm", 4 * 20 + 4 * 16 + 16},    {"ran", 3 * 20 + 2 * 16 + 8},
      {"ran_ln", 3 * 20 + 2 * 16 + 24},   {"lrn", 3 * 20 + 12},              {"lrn_ln", 3 * 20 + 24},
      {"olrn", 4 * 20 + 16},              {"sru", 4 * 20 + 8},               {"lgru", 5 * 20 + 4 * 16 + 16},
      {"tgru", 3 * 16 + 12},              {"dt", 5 * 20 + 4 * 16 + 16 + 3 * 16 + 12},
      {"dt_t2", 5 * 20 + 4 * 16 + 16 + 2 * (3 * 16 + 12)},                  {"srnn", 20 + 16 + 4},
      {"mingru", 2 * 20 + 8},             {"mingru_bias_none", 2 * 20},      {"minlstm", 3 * 20 + 12},
      {"qrnn", 3 * 20 + 12},              {"qrnn_w2", 6 * 20 + 12},          {"indrnn", 20 + 4 + 4},
      {"hgrn", 3 * 20 + 12}};
  for (const auto& [name, n] : want) {
    ParamStore store;
    auto cell = make_cell(variant(name, 4), 5, store, "m");
    EXPECT_EQ(store.total_size(), n) << name;
    EXPECT_EQ(cell->expected_params(), n) << name;
  }
}

TEST(CellParams, Table1WeightMatricesAndTransformations) {
  // ATR paper Table 1: LSTM 8/8, GRU 6/6, RAN 4/4, ATR 2/2. The paper's RAN is Lee et al.'s simplest one,
  // c̃ = x (content "identity", I == H); the default RAN keeps c̃ = x W_c and has one matrix more.
  CellConfig simplest_ran = variant("ran");
  simplest_ran.content = RanContent::kIdentity;
  const std::vector<std::tuple<std::string, CellConfig, int>> want = {
      {"lstm", variant("lstm"), 8}, {"gru", variant("gru"), 6}, {"ran (simplest)", simplest_ran, 4},
      {"atr", variant("atr"), 2},   {"ran (linear content)", variant("ran"), 5}};
  for (const auto& [label, cfg, n] : want) {
    ParamStore store;
    auto cell = make_cell(cfg, kH, store, "m");   // I == H, as the simplest RAN requires
    EXPECT_EQ(cell->info().weight_matrices, n) << label;
    EXPECT_EQ(cell->info().matrix_transformations, n) << label;
    EXPECT_EQ(store.total_size(), cell->expected_params()) << label;
  }
  ParamStore store2;
  EXPECT_THROW(make_cell(simplest_ran, kH + 1, store2, "m"), Error);   // c̃ = x needs I == H
  CellConfig gru_content = variant("gru");
  gru_content.content = RanContent::kIdentity;
  EXPECT_THROW(make_cell(gru_content, kH, store2, "g"), Error);        // not a GRU option
  ParamStore store;
  EXPECT_EQ(make_cell(variant("dt_t2"), kI, store, "m")->info().weight_matrices, 9 + 2 * 3);
}

TEST(CellParams, NamesAndInitialisation) {
  ParamStore store;
  CellConfig cfg = variant("lstm_forget_bias");
  auto lstm = make_cell(cfg, kI, store, "enc/fwd");
  const Mat& b = store.get("enc/fwd/lstm/b").value;
  EXPECT_EQ(b.cols(), 4 * kH);
  EXPECT_EQ(b.middleCols(kH, kH), Mat::Ones(1, kH));
  EXPECT_EQ(b.leftCols(kH), Mat::Zero(1, kH));
  const Mat& w = store.get("enc/fwd/lstm/W").value;
  EXPECT_LE(w.cwiseAbs().maxCoeff(), Real(0.08));   // the papers' uniform(-0.08, 0.08) default
  EXPECT_GT(w.cwiseAbs().maxCoeff(), Real(0));
  auto dt = make_cell(variant("dt_t2"), kI, store, "dec");
  for (const char* name : {"dec/dt/lgru/W", "dec/dt/lgru/U", "dec/dt/lgru/b", "dec/dt/t1/tgru/U", "dec/dt/t2/tgru/b"})
    EXPECT_NE(store.find(name), nullptr) << name;
  for (const char* init : {"normal", "glorot", "orthogonal"}) {
    CellConfig c = variant("atr");
    c.init = *value_of(kWeightInitNames, init);
    EXPECT_NO_THROW(make_cell(c, kI, store, std::string("init_") + init)) << init;
  }
}

// bias_init (issue 51): "uniform" draws every bias from U(-init_scale, init_scale), as the ATR authors' PyTorch
// cell does; "zero" (the default) keeps them at 0; an LSTM's forget_bias is added on top of either.
TEST(CellParams, BiasInitialisation) {
  for (const std::string& type : registered_cell_names()) {
    for (const bool uniform : {false, true}) {
      ParamStore store;
      CellConfig c = variant(type);
      if (type == "atr") c.bias = CellBias::kBoth;
      c.init_scale = 0.3;
      c.bias_init = uniform ? BiasInit::kUniform : BiasInit::kZero;
      make_cell(c, kI, store, "m");
      int biases = 0;
      for (const auto& p : store.all()) {
        const std::string& n = p->name;
        const std::string letter = n.substr(n.rfind('/') + 1);
        if (letter != "b" && letter != "d") continue;
        ++biases;
        const Real amax = p->value.cwiseAbs().maxCoeff();
        if (uniform) {
          EXPECT_GT(amax, Real(0)) << n;
          EXPECT_LE(amax, Real(0.3)) << n;
        } else {
          EXPECT_EQ(amax, Real(0)) << n;
        }
      }
      EXPECT_GT(biases, 0) << type;
      if (type == "atr") {
        EXPECT_EQ(biases, 2);   // b on x W and d on h U
      }
    }
  }
  ParamStore store;
  CellConfig lstm = variant("lstm_forget_bias");
  lstm.bias_init = BiasInit::kUniform;
  lstm.init_scale = 0.1;
  make_cell(lstm, kI, store, "l");
  const Mat& b = store.get("l/lstm/b").value;
  EXPECT_GE(b.middleCols(kH, kH).minCoeff(), Real(0.9));   // 1 + U(-0.1, 0.1)
  EXPECT_LE(b.middleCols(kH, kH).maxCoeff(), Real(1.1));
  EXPECT_GT(b.middleCols(kH, kH).maxCoeff() - b.middleCols(kH, kH).minCoeff(), Real(0));
  EXPECT_LE(b.leftCols(kH).cwiseAbs().maxCoeff(), Real(0.1));
  CellConfig none = variant("gru");
  none.bias = CellBias::kNone;
  none.bias_init = BiasInit::kUniform;
  EXPECT_THROW(make_cell(none, kI, store, "n"), Error);   // nothing to initialise: refused, never ignored
  CellConfig ln = variant("lrn_ln");
  ln.bias_init = BiasInit::kUniform;
  EXPECT_THROW(make_cell(ln, kI, store, "ln"), Error);
}

// SRU's highway_bias (the SRU authors' initial bias of the highway gate r; issue 54's example of adding a
// cell option): b = [b_f b_r] starts with highway_bias added to every b_r and b_f untouched, on top of either
// bias_init, whether the highway x_h is x itself (I == H) or x W_h; a strongly negative one closes r, so the
// first step gives h = x (I == H). It needs the biases, and every other cell refuses it naming the key.
TEST(CellParams, SruHighwayBias) {
  for (const int input_dim : {kH, kI}) {
    SCOPED_TRACE(input_dim);
    for (const bool uniform : {false, true}) {
      ParamStore store;
      CellConfig c = variant("sru");
      c.highway_bias = -2;
      c.bias_init = uniform ? BiasInit::kUniform : BiasInit::kZero;
      c.init_scale = 0.1;
      make_cell(c, input_dim, store, "s");
      const Mat& b = store.get("s/sru/b").value;   // [1, 2H] = [b_f b_r]
      ASSERT_EQ(b.cols(), 2 * kH);
      if (uniform) {
        EXPECT_LE(b.leftCols(kH).cwiseAbs().maxCoeff(), Real(0.1));
        EXPECT_GE(b.rightCols(kH).minCoeff(), Real(-2.1));   // -2 + U(-0.1, 0.1)
        EXPECT_LE(b.rightCols(kH).maxCoeff(), Real(-1.9));
      } else {
        EXPECT_EQ(b.leftCols(kH), Mat::Zero(1, kH));
        EXPECT_EQ(b.rightCols(kH), Mat::Constant(1, kH, Real(-2)));
      }
    }
  }
  ParamStore plain;
  make_cell(variant("sru"), kI, plain, "p");
  EXPECT_EQ(plain.get("p/sru/b").value, Mat::Zero(1, 2 * kH));   // the default adds nothing

  CellConfig shut = variant("sru");
  shut.highway_bias = -40;   // r = σ(-40 + x W_r) ≈ 4e-18: h = r ⊙ g(c) + (1 − r) ⊙ x = x
  shut.output = CellOutput::kIdentity;
  ParamStore store;
  auto cell = make_cell(shut, kH, store, "h");
  Graph g(Mode::kInfer);
  const Mat x = uniform_mat(kB, kH, 3);
  const CellState s = cell->step(cell->project_inputs(g.constant(x)), cell->zero_state(g, kB));
  EXPECT_LT(max_abs_diff(s.h.val(), x), 1e-6);

  auto error = [](const std::string& type, bool bias) {
    CellConfig c = variant(type);
    c.highway_bias = -2;
    if (!bias) c.bias = CellBias::kNone;
    ParamStore store;
    return test::error_of([&] { make_cell(c, kI, store, "e"); });
  };
  EXPECT_EQ(error("sru", true), test::kNoErrorThrown);
  EXPECT_PRED2(test::contains, error("sru", false),
               "cell 'sru': highway_bias=-2 needs a bias (bias='none' was given)");
  for (const std::string type : {"lstm", "gru", "atr"})
    EXPECT_PRED2(test::contains, error(type, true), "cell '" + type + "' has no option highway_bias=-2.000000");
}

// IndRNN's recurrent weight u starts in U(0, 1) (the authors' README, for ReLU) clipped to the bound, and carries the
// bound as Param::max_abs, which the optimisers keep after every update (test_optim.cc).
TEST(CellParams, IndRnnRecurrentWeightIsBounded) {
  for (double bound : {1.0, 0.3}) {
    ParamStore store(5);
    CellConfig c = variant("indrnn", 50);
    c.recurrent_bound = bound;
    make_cell(c, kI, store, "m");
    const Param& u = store.get("m/indrnn/u");
    EXPECT_EQ(u.value.rows(), 1);
    EXPECT_EQ(u.max_abs, Real(bound));
    EXPECT_GE(u.value.minCoeff(), Real(0));
    EXPECT_LE(u.value.maxCoeff(), Real(bound));
    EXPECT_GT(u.value.maxCoeff(), Real(bound) * Real(0.9));   // 50 draws: the top reaches the bound (or 1)
    for (const auto& p : store.all()) {
      if (p.get() != &u) {
        EXPECT_EQ(p->max_abs, Real(0)) << p->name;   // only u is bounded
      }
    }
  }
}

// HGRN's lower bound rises with depth in a stack: γ·k/(L − 1), 0 at the bottom, γ at the top; one layer keeps γ; every
// other setting (and every other cell's config) passes through unchanged.
TEST(CellParams, LayerCellConfigSpreadsHgrnsBoundOverTheLayers) {
  CellConfig c = variant("hgrn");
  c.forget_lower_bound = 0.6;
  EXPECT_EQ(layer_cell_config(c, 0, 1).forget_lower_bound, 0.6);
  EXPECT_EQ(layer_cell_config(c, 0, 2).forget_lower_bound, 0.0);
  EXPECT_EQ(layer_cell_config(c, 1, 2).forget_lower_bound, 0.6);
  EXPECT_NEAR(layer_cell_config(c, 1, 4).forget_lower_bound, 0.2, 1e-15);
  EXPECT_NEAR(layer_cell_config(c, 2, 4).forget_lower_bound, 0.4, 1e-15);
  EXPECT_EQ(layer_cell_config(c, 3, 4).forget_lower_bound, 0.6);
  EXPECT_EQ(to_json(layer_cell_config(variant("lstm_forget_bias"), 1, 3)), to_json(variant("lstm_forget_bias")));
  EXPECT_THROW(layer_cell_config(c, 2, 2), Error);
}

TEST(CellFactory, Errors) {
  ParamStore store;
  CellConfig cfg = variant("atr");
  cfg.type = "bogus";
  try {
    make_cell(cfg, kI, store, "m");
    FAIL() << "no error for an unknown cell";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("bogus"), std::string::npos) << msg;
    for (const auto& name : registered_cell_names()) EXPECT_NE(msg.find(name), std::string::npos) << msg;
  }
  for (int hidden : {0, -3}) {
    CellConfig c = variant("gru");
    c.hidden = hidden;
    EXPECT_THROW(make_cell(c, kI, store, "m"), Error);
  }
  EXPECT_THROW(make_cell(variant("atr"), 0, store, "m0"), Error);
  auto expect_rejected = [&](const std::string& type, auto tweak) {
    CellConfig c = variant(type);
    tweak(c);
    EXPECT_THROW(make_cell(c, kI, store, "m_" + type), Error) << type;
  };
  expect_rejected("gru", [](CellConfig& c) { c.output = CellOutput::kTanh; });
  expect_rejected("lstm", [](CellConfig& c) { c.layer_norm = true; });
  expect_rejected("lrn", [](CellConfig& c) { c.coupled = true; });
  expect_rejected("gru", [](CellConfig& c) { c.bias = CellBias::kInput; });
  expect_rejected("atr", [](CellConfig& c) { c.transitions = 3; });
  expect_rejected("lstm", [](CellConfig& c) { c.bias = CellBias::kNone; c.forget_bias = 1; });
  expect_rejected("dt", [](CellConfig& c) { c.transitions = -1; });
  EXPECT_TRUE(is_registered_cell("lrn"));
  EXPECT_FALSE(is_registered_cell("bogus"));
  EXPECT_EQ(registered_cell_names().size(), 16u);
}

// ---------------------------------------------------------------------------------------------------------

TEST(CellGolden, FloatAgreesWithDoubleGolden) {
  std::ifstream in(std::string(TW_SOURCE_DIR) + "/tests/golden/cells_forward.json");
  ASSERT_TRUE(in.good()) << "missing tests/golden/cells_forward.json (HINT: TW_REGEN_GOLDEN=1 twin_gradcheck)";
  const nlohmann::json cells = nlohmann::json::parse(in).at("cells");
  const auto variants = cell_variants(kH);
  EXPECT_EQ(cells.size(), variants.size());
  for (const auto& v : variants) {
    ASSERT_TRUE(cells.contains(v.name)) << v.name;
    const auto& want = cells.at(v.name);
    const CellFingerprint fp = cell_fingerprint(v.cfg);
    const double scale = want.at("abs_mean").get<double>();
    ASSERT_GT(scale, 1e-3) << v.name << ": golden outputs too small to compare";
    auto near = [&](double got, double ref, const std::string& what) {
      EXPECT_LE(std::abs(got - ref), 1e-4 * std::max(std::abs(ref), scale)) << v.name << " " << what;
    };
    near(fp.fwd_sum, want.at("fwd_sum").get<double>(), "fwd_sum");
    near(fp.bwd_sum, want.at("bwd_sum").get<double>(), "bwd_sum");
    near(fp.abs_mean, scale, "abs_mean");
    const auto entries = want.at("entries").get<std::vector<double>>();
    ASSERT_EQ(fp.entries.size(), entries.size()) << v.name;
    for (size_t j = 0; j < entries.size(); ++j) near(fp.entries[j], entries[j], "entry " + std::to_string(j));
  }
}

}  // namespace
}  // namespace twin
