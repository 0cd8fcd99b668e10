#include "rnn/olrn.h"

namespace twin {

OlrnCell::OlrnCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope)
    : CellBase("olrn", cfg, input_dim) {
  check_cell_config(cfg, input_dim, name_, kOptions);
  output_ = parse_output(cfg, kDefaultOutput);
  const bool has_bias = parse_has_bias(cfg);
  w_ = &add_param(store, scope, "W", I(), 4 * H(), weight_init(cfg));
  if (cfg.layer_norm) {
    ln_g_ = &add_param(store, scope, "ln_g", 1, 4 * H(), init::constant(1));
    ln_b_ = &add_param(store, scope, "ln_b", 1, 4 * H(), init::constant(0));
  } else if (has_bias) {
    b_ = &add_param(store, scope, "b", 1, 4 * H(), bias_init(cfg));
  }
}

Index OlrnCell::expected_params() const { return 4 * I() * H() + (ln_g_ ? 8 * H() : (b_ ? 4 * H() : 0)); }

Var OlrnCell::project_inputs(Var x) const {
  Graph& g = *x.g;
  if (ln_g_) return layer_norm(matmul(x, g.param(*w_)), g.param(*ln_g_), g.param(*ln_b_));   // [T*B, 4H]
  return project(x, *w_, b_);                                                                 // [T*B, 4H]
}

CellState OlrnCell::step(Var qkvs, const CellState& prev, GateRecord* rec) const {
  const Index h = H();
  Var q = chunk(qkvs, 0, h), k = chunk(qkvs, 1, h), v = chunk(qkvs, 2, h), s = chunk(qkvs, 3, h);   // [B, H]
  Var i = sigmoid(k + prev.h);                               // [B, H]
  Var f = sigmoid(q - prev.h);                               // [B, H]
  Var c = i * v + f * prev.h;                                // [B, H]
  Var o = sigmoid(s - c);                                    // [B, H]
  Var h_new = o * apply_act(c, output_);                     // [B, H]
  if (rec) {
    rec->add("i", i.val());
    rec->add("f", f.val());
    rec->add("o", o.val());
  }
  return {h_new, {}};
}

}  // namespace twin
