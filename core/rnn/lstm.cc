#include "rnn/lstm.h"

namespace twin {

LstmCell::LstmCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope)
    : CellBase("lstm", cfg, input_dim, kOptions), kernel_(cfg.kernel) {
  check_kernel_available(cfg, name());
  w_ = &add_param(store, scope, "W", I(), 4 * H(), weight_init(cfg));
  u_ = &add_param(store, scope, "U", H(), 4 * H(), weight_init(cfg));
  const bool has_bias = parse_has_bias(cfg);
  TW_CHECK(has_bias || cfg.forget_bias == 0.0, "cell 'lstm': forget_bias=", cfg.forget_bias,
           " needs a bias (bias='none' was given)");
  if (has_bias) {
    const Index h = H();
    const Real fb = static_cast<Real>(cfg.forget_bias);
    b_ = &add_param(store, scope, "b", 1, 4 * h, [h, fb, base = bias_init(cfg)](Mat& m, Rng& rng) {
      base(m, rng);
      m.middleCols(h, h).array() += fb;   // the f block
    });
  }
}

Index LstmCell::expected_params() const { return 4 * I() * H() + 4 * H() * H() + (b_ ? 4 * H() : 0); }

CellState LstmCell::step(Var a, const CellState& prev, GateRecord* rec) const {
  const Index h = H();
  Var q = recurrent(prev);                                   // [B, 4H]
  if (rec) record_blocks(*rec, sigmoid(Mat((a.val() + q.val()).leftCols(3 * h))), h, {"i", "f", "o"});
  // One fused node (ops/fused_cells.h): s = a + q, [i f o] = σ(s), c̃ = tanh(s_c), c = f c_prev + i c̃,
  // h = o tanh(c).
  auto [h_new, c] = split_hc(lstm_cell(a, q, prev.c));       // [B, H] each
  return {h_new, c};
}

std::optional<SequenceRun> LstmCell::run_layer(Var x, const Mat& mask, Index batch, Dir dir, const CellState& init,
                                               bool record_gates) const {
  if (!dnnl_layer_runs(kernel_, mask, record_gates)) return std::nullopt;
  Graph& g = *x.g;
  return run_dnnl_layer(DnnlRnnCell::kLstm, x, {g.param(*w_), g.param(*u_), {}, b_ ? g.param(*b_) : Var{}}, batch,
                        dir, init);
}

}  // namespace twin
