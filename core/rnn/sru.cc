#include "rnn/sru.h"

namespace twin {

SruCell::SruCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope)
    : CellBase("sru", cfg, input_dim, kOptions) {
  output_ = parse_output(cfg, kDefaultOutput);
  w_ = &add_param(store, scope, "W", I(), (I() == H() ? 3 : 4) * H(), weight_init(cfg));
  const bool has_bias = parse_has_bias(cfg);
  TW_CHECK(has_bias || cfg.highway_bias == 0.0, "cell 'sru': highway_bias=", cfg.highway_bias,
           " needs a bias (bias='none' was given)");
  if (has_bias) {
    b_ = &add_param(store, scope, "b", 1, 2 * H(), bias_init(cfg));
    b_->value.rightCols(H()).array() += static_cast<Real>(cfg.highway_bias);   // b = [b_f b_r]: on b_r
  }
}

Index SruCell::expected_params() const {
  return (I() == H() ? 3 * H() * H() : 4 * I() * H()) + (b_ ? 2 * H() : 0);
}

Var SruCell::project_inputs(Var x) const {
  Var a = CellBase::project_inputs(x);                       // [T*B, 3H] or [T*B, 4H]
  return I() == H() ? concat_cols({a, x}) : a;               // [T*B, 4H]
}

CellState SruCell::step(Var a, const CellState& prev, GateRecord* rec) const {
  const Index h = H();
  if (rec) record_blocks(*rec, sigmoid(Mat(a.val().leftCols(2 * h))), h, {"f", "r"});
  // One fused node (ops/fused_cells.h): c = f ⊙ c_prev + (1 − f) ⊙ x̃,  h = r ⊙ g(c) + (1 − r) ⊙ x_h.
  auto [h_new, c] = split_hc(sru_cell(a, prev.c, output_ == Act::kTanh));   // [B, H] each
  return {h_new, c};
}

}  // namespace twin
