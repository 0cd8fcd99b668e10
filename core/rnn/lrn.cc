#include "rnn/lrn.h"

namespace twin {

LrnCell::LrnCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope)
    : CellBase("lrn", cfg, input_dim) {
  check_cell_config(cfg, input_dim, name_, kOptions);
  output_ = parse_output(cfg, kDefaultOutput);
  const bool has_bias = parse_has_bias(cfg);
  w_ = &add_param(store, scope, "W", I(), 3 * H(), weight_init(cfg));
  if (cfg.layer_norm) {
    ln_g_ = &add_param(store, scope, "ln_g", 1, 3 * H(), init::constant(1));
    ln_b_ = &add_param(store, scope, "ln_b", 1, 3 * H(), init::constant(0));
  } else if (has_bias) {
    b_ = &add_param(store, scope, "b", 1, 3 * H(), bias_init(cfg));
  }
}

// v is the third block of [q k v].
CellTraits LrnCell::traits(const CellConfig& cfg) {
  return {.twin_gated = true,
          .value_block = 2,
          .value_text = "v_k = x_k W_v + b_v (the v block of LRN's [q k v] projection)",
          .output = output_of(parse_output(cfg, kDefaultOutput))};
}

Index LrnCell::expected_params() const { return 3 * I() * H() + (ln_g_ ? 6 * H() : (b_ ? 3 * H() : 0)); }

Var LrnCell::project_inputs(Var x) const {
  Graph& g = *x.g;
  if (ln_g_) return layer_norm(matmul(x, g.param(*w_)), g.param(*ln_g_), g.param(*ln_b_));   // [T*B, 3H]
  return project(x, *w_, b_);                                                                 // [T*B, 3H]
}

CellState LrnCell::step(Var qkv, const CellState& prev, GateRecord* rec) const {
  const Index h = H();
  if (rec) {
    const auto hp = prev.h.val().array();
    rec->add("i", sigmoid(Mat((qkv.val().middleCols(h, h).array() + hp).matrix())));
    rec->add("f", sigmoid(Mat((qkv.val().leftCols(h).array() - hp).matrix())));
  }
  return {lrn_cell(qkv, prev.h, output_ == Act::kTanh), {}};   // one fused node (ops/fused_cells.h)
}

}  // namespace twin
