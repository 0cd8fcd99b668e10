#include "rnn/gru.h"

namespace twin {

GruCell::GruCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope)
    : CellBase("gru", cfg, input_dim, kOptions), kernel_(cfg.kernel) {
  check_kernel_available(cfg, name());
  reset_after_ = cfg.gru_reset_after;
  w_ = &add_param(store, scope, "W", I(), 3 * H(), weight_init(cfg));
  u_ = &add_param(store, scope, "U", H(), (reset_after_ ? 3 : 2) * H(), weight_init(cfg));
  if (!reset_after_) u_h_ = &add_param(store, scope, "U_h", H(), H(), weight_init(cfg));
  if (parse_has_bias(cfg)) b_ = &add_param(store, scope, "b", 1, 3 * H(), bias_init(cfg));
}

Index GruCell::expected_params() const { return 3 * I() * H() + 3 * H() * H() + (b_ ? 3 * H() : 0); }

CellState GruCell::step(Var a, const CellState& prev, GateRecord* rec) const {
  Graph& g = *prev.h.g;
  const Index h = H();
  Var s = recurrent(prev);                                   // [B, 3H] or [B, 2H]
  if (reset_after_) {
    if (rec) record_blocks(*rec, sigmoid(Mat((a.val() + s.val()).leftCols(2 * h))), h, {"z", "r"});
    return {gru_cell(a, s, prev.h), {}};   // one fused node (ops/fused_cells.h)
  }
  // Reset before U: two fused nodes around the [H, H] product that needs r (ops/fused_cells.h).
  if (rec) record_blocks(*rec, sigmoid(Mat((a.val().leftCols(2 * h) + s.val()))), h, {"z", "r"});
  Var s_h = matmul(gru_reset_hidden(a, s, prev.h), g.param(*u_h_));   // (r ⊙ h_prev) U_h   [B, H]
  return {gru_rb_update(a, s, s_h, prev.h), {}};
}

std::optional<SequenceRun> GruCell::run_layer(Var x, const Mat& mask, Index batch, Dir dir, const CellState& init,
                                              bool record_gates) const {
  if (!dnnl_layer_runs(kernel_, mask, record_gates)) return std::nullopt;
  Graph& g = *x.g;
  const DnnlRnnParams p{g.param(*w_), g.param(*u_), u_h_ ? g.param(*u_h_) : Var{}, b_ ? g.param(*b_) : Var{}};
  return run_dnnl_layer(reset_after_ ? DnnlRnnCell::kGruResetAfter : DnnlRnnCell::kGruResetBefore, x, p, batch, dir,
                        init);
}

}  // namespace twin
