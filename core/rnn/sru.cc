#include "rnn/sru.h"

namespace twin {

SruCell::SruCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope)
    : CellBase("sru", cfg, input_dim) {
  check_cell_config(cfg, input_dim, name_, {CellOpt::kOutput, CellOpt::kBiasNone});
  output_ = parse_output(cfg, Act::kTanh);
  w_ = &add_param(store, scope, "W", I(), (I() == H() ? 3 : 4) * H(), weight_init(cfg));
  if (parse_has_bias(cfg)) b_ = &add_param(store, scope, "b", 1, 2 * H(), init::constant(0));
}

Index SruCell::expected_params() const {
  return (I() == H() ? 3 * H() * H() : 4 * I() * H()) + (b_ ? 2 * H() : 0);
}

Var SruCell::project_inputs(Var x) const {
  Var a = project(x, *w_, b_);                               // [T*B, 3H] or [T*B, 4H]
  return I() == H() ? concat_cols({a, x}) : a;               // [T*B, 4H]
}

CellState SruCell::step(Var a, const CellState& prev, GateRecord* rec) const {
  const Index h = H();
  Var fr = sigmoid(slice_cols(a, 0, 2 * h));                 // [B, 2H]
  Var f = chunk(fr, 0, h), r = chunk(fr, 1, h);              // [B, H] each
  Var x_tilde = chunk(a, 2, h), x_h = chunk(a, 3, h);        // [B, H] each
  Var c = x_tilde + f * (prev.c - x_tilde);                  // f ⊙ c_prev + (1 − f) ⊙ x̃
  Var h_new = x_h + r * (apply_act(c, output_) - x_h);       // r ⊙ g(c) + (1 − r) ⊙ x_h
  if (rec) {
    rec->add("f", f.val());
    rec->add("r", r.val());
  }
  return {h_new, c};
}

}  // namespace twin
