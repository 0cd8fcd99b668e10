// Cell options and traits (issue 54): every option is declared once (TWIN_CELL_OPTIONS), each cell says which it
// accepts (kOptions) and what it is (traits()). Here: the key table still has the rows it had before, each
// registered cell accepts exactly its options and refuses every other with the message it always had, and the
// traits a task reads (cell_traits) are each cell class's own and true of the cell it builds.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <ostream>
#include <set>

#include "cell_variants.h"
#include "ops/dnnl_rnn.h"
#include "ops/ops.h"
#include "rnn/atr.h"
#include "rnn/cell_factory.h"
#include "rnn/deep_transition.h"
#include "rnn/gru.h"
#include "rnn/hgrn.h"
#include "rnn/indrnn.h"
#include "rnn/lgru.h"
#include "rnn/lrn.h"
#include "rnn/lstm.h"
#include "rnn/mingru.h"
#include "rnn/minlstm.h"
#include "rnn/olrn.h"
#include "rnn/qrnn.h"
#include "rnn/ran.h"
#include "rnn/srnn.h"
#include "rnn/sru.h"
#include "rnn/tgru.h"
#include "test_util.h"

namespace twin {

void PrintTo(const CellTraits& t, std::ostream* os) {
  *os << "{twin_gated " << t.twin_gated << ", value_block " << t.value_block << ", value_tanh " << t.value_tanh
      << ", value_text \"" << t.value_text << "\", output " << name_of(kCellOutputNames, t.output) << ", has_memory "
      << t.has_memory << "}";
}

// Its own namespace: the unity build compiles this file with its neighbours (test_cells.cc has a kI too).
namespace cell_options_test {
namespace {

constexpr int kI = 3, kH = 2;

CellConfig defaults(const std::string& type) {
  CellConfig c;
  c.type = type;
  c.hidden = kH;
  return c;
}

// A valid value other than the default, for every option from its own row: a flag flipped, a number moved
// inside its bounds, the first other name of a choice.
bool other(bool d) { return !d; }
int other(int d, int lo, int hi) { return d < hi ? d + 1 : d - 1; }
double other(double d, double lo, double hi) { return d + 0.5 <= hi ? d + 0.5 : d - 0.5; }
template <class E, std::size_t N>
E other(E d, const NameTable<E, N>& names) {
  for (const auto& [e, name] : names)
    if (e != d) return e;
  return d;
}
void set_other(CellConfig& c, CellOpt o) {
  switch (o) {
#define TW_SET_OTHER(opt, key, Type, dflt, kind, args, help) \
  case CellOpt::opt: c.key = other(c.key TW_CELL_OPT_ARGS args); break;
    TWIN_CELL_OPTIONS(TW_SET_OTHER)
#undef TW_SET_OTHER
  }
}

std::string refusal(const std::string& type, const std::string& what) {
  return "cell '" + type + "' has no option " + what + " (HINT: leave it at its default for this cell type)";
}

std::string error_of(const CellConfig& cfg) {
  ParamStore store;
  try {
    make_cell(cfg, kI, store, "m");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(CellOptions, TableRowsAreTheSameAsBefore) {
  // The rows the hand-written table had (key, type, allowed, default, help), in its order, then the options
  // added since: --print-keys and experiments/KEYS.md must not move (tools/check_task_outputs.py checks the
  // printed form as well). Each help opens with the cells that read the option, written from their kOptions
  // (cell_config.cc) in registration order; these literal lists are the hand check of that (the hand-written
  // prefixes they replace named the same cells, in another order for output, layer_norm and kernel).
  struct Row {
    std::string key, type, allowed;
    nlohmann::json def;
    std::string doc;
  };
  const std::vector<Row> want = {
      {"type", "string", "", "atr", "the cell: a registered name (README, The cells)"},
      {"hidden", "int", "[0, 65536]", 0, "H, units per direction (0: the task's model.hidden)"},
      {"output", "choice", "default | identity | tanh", "default", "atr, ran, lrn, olrn, sru: output nonlinearity g"},
      {"bias", "choice", "default | none | input | recurrent | both", "default",
       "biases: atr none/input/recurrent/both; the others default/none"},
      {"input_tanh", "bool", "true | false", false, "atr: h = i * tanh(p) + f * h_prev"},
      {"coupled", "bool", "true | false", false, "atr: i = 1 - f"},
      {"layer_norm", "bool", "true | false", false, "atr, ran, lrn, olrn: layer norm on the projections"},
      {"init", "choice", "uniform | normal | glorot | orthogonal", "uniform", "initialiser of the weight matrices"},
      {"init_scale", "number", "[0.0, 10.0]", 0.08, "uniform(-a, a) / normal(0, a) scale"},
      {"bias_init", "choice", "zero | uniform", "zero",
       "biases start at zero, or uniform(-init_scale, init_scale) like the weights"},
      {"forget_bias", "number", "[-100.0, 100.0]", 0.0, "lstm, minlstm: initial forget-gate bias"},
      {"gru_reset_after", "bool", "true | false", true, "gru: r * (h U) (one [H,3H] product) or (r * h) U"},
      {"transitions", "int", "[0, 64]", 1, "dt: T-GRU transitions after the L-GRU"},
      {"content", "choice", "default | linear | identity", "default",
       "ran: content x W_c (linear) or x (identity, needs I = H)"},
      // Options added since, each at the end (issue 54's demonstration of adding one).
      {"highway_bias", "number", "[-100.0, 100.0]", 0.0,
       "sru: initial bias b_r of the highway gate r (< 0: h starts near the highway x_h)"},
      // issue 55: minGRU, minLSTM, QRNN, IndRNN, HGRN
      {"candidate", "choice", "default | g | tanh | identity", "default",
       "mingru, minlstm: h~ = g(x W_h + b): the reference g (x + 0.5 if x >= 0, else sigmoid), tanh, identity"},
      {"normalize_gates", "bool", "true | false", true, "minlstm: f, i <- f / (f + i), i / (f + i)"},
      {"filter_width", "int", "[1, 2]", 1, "qrnn: convolution width (2: x_{t-1} and x_t)"},
      {"recurrent_bound", "number", "[0.0, 100.0]", 1.0, "indrnn: |u| <= bound, projected after every update (> 0)"},
      {"forget_lower_bound", "number", "[0.0, 1.0]", 0.0,
       "hgrn: forget gate in [g, 1), g < 1; in an lm of L > 1 layers layer k gets g k / (L - 1)"},
      // issue 56: oneDNN's RNN primitives for the LSTM and GRU
      {"kernel", "choice", "suite | dnnl", "suite",
       "gru, lstm: recurrence by the suite's kernels or oneDNN's RNN primitives (padded batches: the suite's)"}};
  const std::vector<KeyDoc> docs = cell_table().docs();
  ASSERT_EQ(docs.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k) {
    SCOPED_TRACE(want[k].key);
    EXPECT_EQ(docs[k].key, want[k].key);
    EXPECT_EQ(docs[k].type, want[k].type);
    EXPECT_EQ(docs[k].allowed, want[k].allowed);
    EXPECT_EQ(docs[k].def, want[k].def);
    EXPECT_EQ(docs[k].doc, want[k].doc);
  }
  // CellOpt follows the rows after type and hidden, and to_json writes the keys in the same order.
  ASSERT_EQ(kAllCellOpts.size() + 2, docs.size());
  for (size_t k = 0; k < kAllCellOpts.size(); ++k) EXPECT_EQ(cell_opt_key(kAllCellOpts[k]), docs[k + 2].key);
  std::vector<std::string> written;
  const nlohmann::json resolved = to_json(CellConfig{});
  for (const auto& [key, value] : resolved.items()) written.push_back(key);
  std::vector<std::string> keys;
  for (const KeyDoc& d : docs) keys.push_back(d.key);
  std::sort(keys.begin(), keys.end());   // nlohmann::json objects iterate sorted
  EXPECT_EQ(written, keys);
}

TEST(CellOptions, EachCellAcceptsItsOptionsAndRefusesEveryOther) {
  // What each cell accepted before kOptions (its hand-written list; every cell has biases and initialisers).
  const std::set<std::string> every = {"bias", "init", "init_scale", "bias_init"};
  auto with = [&](std::set<std::string> own) {
    own.insert(every.begin(), every.end());
    return own;
  };
  const std::map<std::string, std::set<std::string>> accepted = {
      {"atr", with({"output", "input_tanh", "coupled", "layer_norm"})},
      {"gru", with({"gru_reset_after", "kernel"})},
      {"lstm", with({"forget_bias", "kernel"})},
      {"ran", with({"output", "layer_norm", "content"})},
      {"lrn", with({"output", "layer_norm"})},
      {"olrn", with({"output", "layer_norm"})},
      {"sru", with({"output", "highway_bias"})},
      {"lgru", every},
      {"tgru", every},
      {"dt", with({"transitions"})},
      {"srnn", every},
      {"mingru", with({"candidate"})},
      {"minlstm", with({"candidate", "normalize_gates", "forget_bias"})},
      {"qrnn", with({"filter_width"})},
      {"indrnn", with({"recurrent_bound"})},
      {"hgrn", with({"forget_lower_bound"})}};
  ASSERT_EQ(registered_cell_names().size(), accepted.size());
  for (const std::string& type : registered_cell_names()) {
    ASSERT_TRUE(accepted.count(type)) << type << ": add the options it accepts to this test";
    const CellOptSet options = cell_options(type);
    EXPECT_EQ(error_of(defaults(type)), "") << type;   // every option at its default: nothing to refuse
    for (CellOpt o : kAllCellOpts) {
      const std::string key(cell_opt_key(o));
      SCOPED_TRACE(type + " " + key);
      CellConfig c = defaults(type);
      set_other(c, o);
      ASSERT_FALSE(cell_opt_is_default(c, o));
      EXPECT_EQ(options.has(o), accepted.at(type).count(key) == 1);
      const std::string err = error_of(c);
      if (options.has(o) && o == CellOpt::kKernel && !dnnl_rnn_available()) {
        // kernel='dnnl' is the cell's own option, refused only for want of oneDNN in this build.
        EXPECT_PRED2(test::contains, err, "kernel='dnnl' needs a build with oneDNN");
      } else if (options.has(o)) {
        EXPECT_EQ(err, "");
      } else {
        EXPECT_EQ(err.rfind(refusal(type, cell_opt_text(c, o)), 0), 0u) << err;
      }
    }
  }
}

TEST(CellOptions, RefusalsReadAsTheyDid) {
  // The messages of the hand-written checks, word for word (each then names its source line).
  auto refused = [](const std::string& type, auto tweak) {
    CellConfig c = defaults(type);
    tweak(c);
    return error_of(c);
  };
  auto starts = [](const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; };
  EXPECT_PRED2(starts, refused("gru", [](CellConfig& c) { c.output = CellOutput::kTanh; }),
               refusal("gru", "output='tanh'"));
  EXPECT_PRED2(starts, refused("lstm", [](CellConfig& c) { c.layer_norm = true; }), refusal("lstm", "layer_norm=true"));
  EXPECT_PRED2(starts, refused("lrn", [](CellConfig& c) { c.coupled = true; }), refusal("lrn", "coupled=true"));
  EXPECT_PRED2(starts, refused("sru", [](CellConfig& c) { c.input_tanh = true; }), refusal("sru", "input_tanh=true"));
  EXPECT_PRED2(starts, refused("atr", [](CellConfig& c) { c.transitions = 3; }), refusal("atr", "transitions=3"));
  EXPECT_PRED2(starts, refused("atr", [](CellConfig& c) { c.forget_bias = 1; }),
               refusal("atr", "forget_bias=1.000000"));
  EXPECT_PRED2(starts, refused("lstm", [](CellConfig& c) { c.gru_reset_after = false; }),
               refusal("lstm", "gru_reset_after=false"));
  EXPECT_PRED2(starts, refused("gru", [](CellConfig& c) { c.content = RanContent::kIdentity; }),
               refusal("gru", "content='identity'"));
  // The dt cell's sub-cells are built with transitions at its default: an L-GRU alone still refuses it.
  EXPECT_PRED2(starts, refused("lgru", [](CellConfig& c) { c.transitions = 2; }), refusal("lgru", "transitions=2"));
  // Values an accepting cell refuses stay the cell's own checks, with their own messages.
  EXPECT_PRED2(starts, refused("gru", [](CellConfig& c) { c.bias = CellBias::kInput; }),
               std::string("cell 'gru': bias must be 'default' or 'none', got 'input'"));
  EXPECT_PRED2(starts, refused("gru", [](CellConfig& c) { c.bias = CellBias::kNone; c.bias_init = BiasInit::kUniform; }),
               std::string("cell 'gru': bias_init='uniform' needs biases (bias='none' was given)"));
  CellConfig ran = defaults("ran");
  ran.content = RanContent::kIdentity;
  ParamStore store;
  EXPECT_THROW(make_cell(ran, kH + 1, store, "r"), Error);   // c̃ = x needs I == H
  EXPECT_NO_THROW(make_cell(ran, kH, store, "r"));
}

using TraitsOf = CellTraits (*)(const CellConfig&);

// Each registered name with its class's traits(), written out here so that the factory's table is checked
// against the classes rather than against itself.
const std::map<std::string, TraitsOf>& class_traits() {
  static const std::map<std::string, TraitsOf> m = {
      {"atr", &AtrCell::traits},   {"gru", &GruCell::traits},   {"lstm", &LstmCell::traits},
      {"ran", &RanCell::traits},   {"lrn", &LrnCell::traits},   {"olrn", &OlrnCell::traits},
      {"sru", &SruCell::traits},   {"lgru", &LgruCell::traits}, {"tgru", &TgruCell::traits},
      {"dt", &dt_traits},          {"srnn", &SrnnCell::traits}, {"mingru", &MinGruCell::traits},
      {"minlstm", &MinLstmCell::traits}, {"qrnn", &QrnnCell::traits}, {"indrnn", &IndRnnCell::traits},
      {"hgrn", &HgrnCell::traits}};
  return m;
}

TEST(CellTraits, LookupIsEachCellsOwnAndAgreesWithTheBuiltCell) {
  ASSERT_EQ(registered_cell_names().size(), class_traits().size());
  const std::map<std::string, CellOptSet> class_options = {
      {"atr", AtrCell::kOptions},   {"gru", GruCell::kOptions},   {"lstm", LstmCell::kOptions},
      {"ran", RanCell::kOptions},   {"lrn", LrnCell::kOptions},   {"olrn", OlrnCell::kOptions},
      {"sru", SruCell::kOptions},   {"lgru", LgruCell::kOptions}, {"tgru", TgruCell::kOptions},
      {"dt", kDtOptions},           {"srnn", SrnnCell::kOptions}, {"mingru", MinGruCell::kOptions},
      {"minlstm", MinLstmCell::kOptions}, {"qrnn", QrnnCell::kOptions}, {"indrnn", IndRnnCell::kOptions},
      {"hgrn", HgrnCell::kOptions}};
  for (const std::string& type : registered_cell_names()) {
    ASSERT_TRUE(class_traits().count(type)) << type << ": add its traits() to this test";
    EXPECT_TRUE(cell_options(type) == class_options.at(type)) << type;
  }
  for (const NamedCellConfig& v : cell_variants(kH)) {
    SCOPED_TRACE(v.name);
    const CellTraits t = cell_traits(v.cfg);
    EXPECT_EQ(t, class_traits().at(v.cfg.type)(v.cfg));
    ParamStore store;
    auto cell = make_cell(v.cfg, kH, store, "m");   // I == H, which every variant accepts
    EXPECT_EQ(t.has_memory, cell->has_memory());
    EXPECT_EQ(t.twin_gated, t.value_block >= 0);
    if (t.twin_gated) {
      EXPECT_LT(t.value_block, cell->k());
      EXPECT_NE(t.value_text, "");
    }
    if (cell_options(v.cfg.type).has(CellOpt::kOutput)) {
      EXPECT_NE(t.output, CellOutput::kDefault);
    }
  }
  // The two cells the tasks' dependency and memory analyses read, as they did by name.
  std::vector<std::string> twin;
  for (const std::string& type : registered_cell_names())
    if (cell_traits(defaults(type)).twin_gated) twin.push_back(type);
  EXPECT_EQ(twin, (std::vector<std::string>{"atr", "lrn"}));
  // Output as each cell resolves "default" (classify's memory report prints it).
  EXPECT_EQ(cell_traits(defaults("atr")).output, CellOutput::kIdentity);
  EXPECT_EQ(cell_traits(defaults("lrn")).output, CellOutput::kTanh);
}

TEST(CellTraits, TwinGatedCellsStepAsTheirTraitsSay) {
  // h = g(i ⊙ v + f ⊙ h_prev) with v read where value_block / value_tanh say and g = the traits' output: the
  // claim the dependency and memory analyses build on, checked on one step of every twin-gated variant.
  int checked = 0;
  for (const NamedCellConfig& v : cell_variants(kH)) {
    const CellTraits t = cell_traits(v.cfg);
    if (!t.twin_gated) continue;
    SCOPED_TRACE(v.name);
    ++checked;
    CellConfig cfg = v.cfg;
    cfg.init_scale = 0.7;   // gates far from 1/2
    ParamStore store(3);
    auto cell = make_cell(cfg, kI, store, "m");
    Graph g(Mode::kInfer);
    const Index B = 2;
    const Mat h_prev = test::uniform_mat(B, kH, 7);
    Var xp = cell->project_inputs(g.constant(test::uniform_mat(B, kI, 5)));   // [B, k*H]
    GateRecord rec;
    const CellState s = cell->step(xp, CellState{g.constant(h_prev), {}}, &rec);
    std::map<std::string, Mat> gates(rec.values.begin(), rec.values.end());
    ASSERT_TRUE(gates.count("i") && gates.count("f"));
    Mat val = xp.val().middleCols(t.value_block * kH, kH);
    if (t.value_tanh) val = val.array().tanh().matrix();
    Mat want = (gates["i"].array() * val.array() + gates["f"].array() * h_prev.array()).matrix();
    if (t.output == CellOutput::kTanh) want = want.array().tanh().matrix();
    EXPECT_LT((want - s.h.val()).cwiseAbs().maxCoeff(), 1e-5);
  }
  EXPECT_GE(checked, 16);   // atr and its 7 variants, lrn and its 3, minGRU and minLSTM with a plain candidate (4)
}

TEST(CellTraits, AnUnregisteredTypeIsAClearError) {
  for (auto call : {+[] { cell_traits(defaults("bogus")); }, +[] { cell_options("bogus"); }}) {
    try {
      call();
      ADD_FAILURE() << "no error for an unregistered cell";
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("unknown cell type 'bogus'"), std::string::npos) << msg;
      for (const std::string& name : registered_cell_names()) EXPECT_NE(msg.find(name), std::string::npos) << msg;
    }
  }
}

}  // namespace
}  // namespace cell_options_test
}  // namespace twin
