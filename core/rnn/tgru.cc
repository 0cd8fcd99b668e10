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
  if (rec) record_blocks(*rec, sigmoid(Mat(s.val().leftCols(2 * h))), h, {"z", "r"});
  return {tgru_cell(s, prev.h), {}};   // one fused node (ops/fused_cells.h): z r, h̃, h
}

}  // namespace twin
