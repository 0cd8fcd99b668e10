#include "rnn/ran.h"

namespace twin {

RanCell::RanCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope)
    : CellBase("ran", cfg, input_dim, kOptions) {
  output_ = parse_output(cfg, kDefaultOutput);
  identity_content_ = cfg.content == RanContent::kIdentity;
  TW_CHECK(!identity_content_ || input_dim == cfg.hidden, "cell 'ran': content='identity' (c̃ = x) needs the ",
           "input size (", input_dim, ") to equal hidden (", cfg.hidden, ")");
  const Index k = identity_content_ ? 2 : 3;
  const bool has_bias = parse_has_bias(cfg);
  w_ = &add_param(store, scope, "W", I(), k * H(), weight_init(cfg));
  u_ = &add_param(store, scope, "U", H(), 2 * H(), weight_init(cfg));
  if (cfg.layer_norm) {
    std::tie(ln_g_, ln_b_) = add_layer_norm(store, scope, "ln", k * H());
  } else if (has_bias) {
    b_ = &add_param(store, scope, "b", 1, 2 * H(), bias_init(cfg));
  }
}

Index RanCell::expected_params() const {
  const Index k = identity_content_ ? 2 : 3;
  return k * I() * H() + 2 * H() * H() + (ln_g_ ? 2 * k * H() : (b_ ? 2 * H() : 0));
}

Var RanCell::project_inputs(Var x) const {
  Var p = CellBase::project_inputs(x);                       // [T*B, kH]
  return identity_content_ ? concat_cols({p, x}) : p;                                    // [T*B, 3H]
}

CellState RanCell::step(Var a, const CellState& prev, GateRecord* rec) const {
  const Index h = H();
  Var q = recurrent(prev);                                   // [B, 2H]
  if (rec) record_blocks(*rec, sigmoid(Mat(a.val().leftCols(2 * h) + q.val())), h, {"i", "f"});
  // One fused node (ops/fused_cells.h): [i f] = σ(a_if + q), c = i c̃ + f c_prev, h = g(c).
  auto [h_new, c] = split_hc(ran_cell(a, q, prev.c, output_ == Act::kTanh));   // [B, H] each
  return {h_new, c};
}

}  // namespace twin
