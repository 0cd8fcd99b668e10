#include "rnn/tgru.h"

namespace twin {

TgruCell::TgruCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope)
    : CellBase("tgru", cfg, input_dim, kOptions) {
  u_ = &add_param(store, scope, "U", H(), 3 * H(), weight_init(cfg));
  if (parse_has_bias(cfg)) b_ = &add_param(store, scope, "b", 1, 3 * H(), bias_init(cfg));
}

CellState TgruCell::step(Var, const CellState& prev, GateRecord* rec) const {
  Graph& g = *prev.h.g;
  const Index h = H();
  Var s = b_ ? affine(prev.h, g.param(*u_), g.param(*b_)) : matmul(prev.h, g.param(*u_));   // [B, 3H]
  Var zr = sigmoid(slice_cols(s, 0, 2 * h));                 // [B, 2H]
  Var z = chunk(zr, 0, h), r = chunk(zr, 1, h);              // [B, H] each
  Var h_tilde = tanh(r * chunk(s, 2, h));                    // [B, H]
  Var h_new = prev.h + z * (h_tilde - prev.h);               // (1 − z) ⊙ h_prev + z ⊙ h̃
  record_gates(rec, {{"z", z}, {"r", r}});
  return {h_new, {}};
}

}  // namespace twin
