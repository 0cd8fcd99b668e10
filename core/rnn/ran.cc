#include "rnn/ran.h"

namespace twin {

RanCell::RanCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope)
    : CellBase("ran", cfg, input_dim) {
  check_cell_config(cfg, input_dim, name_, {CellOpt::kOutput, CellOpt::kBiasNone, CellOpt::kLayerNorm});
  output_ = parse_output(cfg, Act::kTanh);
  const bool has_bias = parse_has_bias(cfg);
  w_ = &add_param(store, scope, "W", I(), 3 * H(), weight_init(cfg));
  u_ = &add_param(store, scope, "U", H(), 2 * H(), weight_init(cfg));
  if (cfg.layer_norm) {
    ln_g_ = &add_param(store, scope, "ln_g", 1, 3 * H(), init::constant(1));
    ln_b_ = &add_param(store, scope, "ln_b", 1, 3 * H(), init::constant(0));
  } else if (has_bias) {
    b_ = &add_param(store, scope, "b", 1, 2 * H(), init::constant(0));
  }
}

Index RanCell::expected_params() const {
  return 3 * I() * H() + 2 * H() * H() + (ln_g_ ? 6 * H() : (b_ ? 2 * H() : 0));
}

Var RanCell::project_inputs(Var x) const {
  Graph& g = *x.g;
  if (ln_g_) return layer_norm(matmul(x, g.param(*w_)), g.param(*ln_g_), g.param(*ln_b_));   // [T*B, 3H]
  return project(x, *w_, b_);                                                                 // [T*B, 3H]
}

CellState RanCell::step(Var a, const CellState& prev, GateRecord* rec) const {
  Graph& g = *prev.h.g;
  const Index h = H();
  Var gates = sigmoid(slice_cols(a, 0, 2 * h) + matmul(prev.h, g.param(*u_)));   // [B, 2H]
  Var i = chunk(gates, 0, h), f = chunk(gates, 1, h);        // [B, H] each
  Var c_tilde = chunk(a, 2, h);                              // [B, H]
  Var c = i * c_tilde + f * prev.c;                          // [B, H]
  if (rec) {
    rec->add("i", i.val());
    rec->add("f", f.val());
  }
  return {apply_act(c, output_), c};
}

}  // namespace twin
