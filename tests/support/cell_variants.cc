#include "cell_variants.h"

#include "base/check.h"
#include "graph/graph.h"
#include "rnn/cell_factory.h"
#include "rnn/rnn.h"

namespace twin {

std::vector<NamedCellConfig> cell_variants(int hidden) {
  std::vector<NamedCellConfig> out;
  auto add = [&](std::string name, const std::string& type, auto&& tweak) {
    CellConfig c;
    c.type = type;
    c.hidden = hidden;
    tweak(c);
    out.push_back({std::move(name), c});
  };
  auto none = [](CellConfig&) {};
  for (const std::string& type : registered_cell_names()) add(type, type, none);

  add("atr_tanh", "atr", [](CellConfig& c) { c.output = CellOutput::kTanh; });
  add("atr_bias_none", "atr", [](CellConfig& c) { c.bias = CellBias::kNone; });
  add("atr_bias_recurrent", "atr", [](CellConfig& c) { c.bias = CellBias::kRecurrent; });
  add("atr_bias_both", "atr", [](CellConfig& c) { c.bias = CellBias::kBoth; });
  add("atr_input_tanh", "atr", [](CellConfig& c) { c.input_tanh = true; });
  add("atr_coupled", "atr", [](CellConfig& c) { c.coupled = true; });
  add("atr_ln", "atr", [](CellConfig& c) { c.layer_norm = true; });
  add("lrn_identity", "lrn", [](CellConfig& c) { c.output = CellOutput::kIdentity; });
  add("lrn_ln", "lrn", [](CellConfig& c) { c.layer_norm = true; });
  add("lrn_bias_none", "lrn", [](CellConfig& c) { c.bias = CellBias::kNone; });
  add("olrn_tanh", "olrn", [](CellConfig& c) { c.output = CellOutput::kTanh; });
  add("olrn_ln", "olrn", [](CellConfig& c) { c.layer_norm = true; });
  add("ran_identity", "ran", [](CellConfig& c) { c.output = CellOutput::kIdentity; });
  add("ran_ln", "ran", [](CellConfig& c) { c.layer_norm = true; });
  add("gru_reset_before", "gru", [](CellConfig& c) { c.gru_reset_after = false; });
  add("lstm_forget_bias", "lstm", [](CellConfig& c) { c.forget_bias = 1.0; });
  add("sru_identity", "sru", [](CellConfig& c) { c.output = CellOutput::kIdentity; });
  add("dt_t2", "dt", [](CellConfig& c) { c.transitions = 2; });
  add("dt_bias_none", "dt", [](CellConfig& c) { c.bias = CellBias::kNone; });
  // issue 55
  add("mingru_tanh", "mingru", [](CellConfig& c) { c.candidate = CellCandidate::kTanh; });
  add("mingru_identity", "mingru", [](CellConfig& c) { c.candidate = CellCandidate::kIdentity; });
  add("mingru_bias_none", "mingru", [](CellConfig& c) { c.bias = CellBias::kNone; });
  add("minlstm_no_norm", "minlstm", [](CellConfig& c) { c.normalize_gates = false; });
  add("minlstm_identity_no_norm", "minlstm", [](CellConfig& c) {   // LRN with h_{t-1} out of its gates
    c.candidate = CellCandidate::kIdentity;
    c.normalize_gates = false;
  });
  add("minlstm_tanh", "minlstm", [](CellConfig& c) { c.candidate = CellCandidate::kTanh; });
  add("minlstm_forget_bias", "minlstm", [](CellConfig& c) { c.forget_bias = 1.0; });
  add("qrnn_w2", "qrnn", [](CellConfig& c) { c.filter_width = 2; });
  add("indrnn_bound", "indrnn", [](CellConfig& c) { c.recurrent_bound = 0.5; });
  add("hgrn_bound", "hgrn", [](CellConfig& c) { c.forget_lower_bound = 0.6; });
  return out;
}

CellConfig cell_variant(const std::string& name, int hidden) {
  for (NamedCellConfig& v : cell_variants(hidden))
    if (v.name == name) return v.cfg;
  TW_FAIL("no cell variant named '", name, "'");
}

CellFingerprint cell_fingerprint(CellConfig cfg) {
  constexpr int kI = 3;
  constexpr Index kT = 3, kB = 2;
  cfg.init = WeightInit::kUniform;
  cfg.init_scale = 0.5;
  ParamStore store(11);
  auto cell = make_cell(cfg, kI, store, "golden");
  Rng rng(5);
  Mat x(kT * kB, kI), h0(kB, cfg.hidden), c0(kB, cfg.hidden);
  rng.fill_uniform(x, -1, 1);
  rng.fill_uniform(h0, Real(-0.5), Real(0.5));
  rng.fill_uniform(c0, Real(-0.5), Real(0.5));
  Mat mask = Mat::Ones(kT * kB, 1);
  mask(2 * kB + 1, 0) = 0;   // sequence 1 has length 2
  Graph g(Mode::kInfer);
  auto init = [&] {
    CellState s{g.constant(h0), {}};
    if (cell->has_memory()) s.c = g.constant(c0);
    return s;
  };
  SeqOut f = run_rnn(*cell, g.constant(x), mask, kB, Dir::kForward, init());
  SeqOut b = run_rnn(*cell, g.constant(x), mask, kB, Dir::kBackward, init());
  CellFingerprint fp;
  fp.fwd_sum = static_cast<double>(f.h_all.val().sum());
  fp.bwd_sum = static_cast<double>(b.h_all.val().sum());
  fp.abs_mean = static_cast<double>(f.h_all.val().cwiseAbs().sum() + b.h_all.val().cwiseAbs().sum()) /
                static_cast<double>(2 * f.h_all.val().size());
  for (Index j = 0; j < f.h_all.cols(); ++j) fp.entries.push_back(f.h_all.val()(0, j));
  for (Index j = 0; j < f.last.h.val().size(); ++j) fp.entries.push_back(f.last.h.val().data()[j]);
  for (Index j = 0; j < b.last.h.val().size(); ++j) fp.entries.push_back(b.last.h.val().data()[j]);
  return fp;
}

}  // namespace twin
