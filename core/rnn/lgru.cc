#include "rnn/lgru.h"

namespace twin {

LgruCell::LgruCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope)
    : CellBase("lgru", cfg, input_dim, kOptions) {
  w_ = &add_param(store, scope, "W", I(), 5 * H(), weight_init(cfg));
  u_ = &add_param(store, scope, "U", H(), 4 * H(), weight_init(cfg));
  if (parse_has_bias(cfg)) b_ = &add_param(store, scope, "b", 1, 4 * H(), bias_init(cfg));
}

Index LgruCell::expected_params() const { return 5 * I() * H() + 4 * H() * H() + (b_ ? 4 * H() : 0); }

CellState LgruCell::step(Var a, const CellState& prev, GateRecord* rec) const {
  const Index h = H();
  Var s = recurrent(prev);                                   // [B, 4H]
  Var zrl = sigmoid(slice_cols(a, 0, 3 * h) + slice_cols(s, 0, 3 * h));   // [B, 3H]
  Var z = chunk(zrl, 0, h), r = chunk(zrl, 1, h), l = chunk(zrl, 2, h);   // [B, H] each
  Var h_tilde = tanh(chunk(a, 3, h) + r * chunk(s, 3, h)) + l * chunk(a, 4, h);   // [B, H]
  Var h_new = prev.h + z * (h_tilde - prev.h);               // (1 − z) ⊙ h_prev + z ⊙ h̃
  record_gates(rec, {{"z", z}, {"r", r}, {"l", l}});
  return {h_new, {}};
}

}  // namespace twin
