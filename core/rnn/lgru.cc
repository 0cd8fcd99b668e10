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
  if (rec) record_blocks(*rec, sigmoid(Mat(a.val().leftCols(3 * h) + s.val().leftCols(3 * h))), h, {"z", "r", "l"});
  return {lgru_cell(a, s, prev.h), {}};   // one fused node (ops/fused_cells.h): z r l, h̃, h
}

}  // namespace twin
