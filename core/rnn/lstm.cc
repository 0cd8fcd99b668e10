#include "rnn/lstm.h"

namespace twin {

LstmCell::LstmCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope)
    : CellBase("lstm", cfg, input_dim) {
  check_cell_config(cfg, input_dim, name_, kOptions);
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

Var LstmCell::project_inputs(Var x) const { return project(x, *w_, b_); }   // [T*B, 4H]

CellState LstmCell::step(Var a, const CellState& prev, GateRecord* rec) const {
  Graph& g = *prev.h.g;
  const Index h = H();
  Var q = matmul(prev.h, g.param(*u_));                      // [B, 4H]
  if (rec) {
    const Mat ifo = sigmoid(Mat((a.val() + q.val()).leftCols(3 * h)));   // [B, 3H]
    rec->add("i", ifo.leftCols(h));
    rec->add("f", ifo.middleCols(h, h));
    rec->add("o", ifo.rightCols(h));
  }
  // One fused node (ops/fused_cells.h): s = a + q, [i f o] = σ(s), c̃ = tanh(s_c), c = f c_prev + i c̃,
  // h = o tanh(c).
  auto [h_new, c] = split_hc(lstm_cell(a, q, prev.c));       // [B, H] each
  return {h_new, c};
}

}  // namespace twin
