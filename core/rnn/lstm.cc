#include "rnn/lstm.h"

namespace twin {

LstmCell::LstmCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope)
    : CellBase("lstm", cfg, input_dim) {
  check_cell_config(cfg, input_dim, name_, {CellOpt::kBiasNone, CellOpt::kForgetBias});
  w_ = &add_param(store, scope, "W", I(), 4 * H(), weight_init(cfg));
  u_ = &add_param(store, scope, "U", H(), 4 * H(), weight_init(cfg));
  const bool has_bias = parse_has_bias(cfg);
  TW_CHECK(has_bias || cfg.forget_bias == 0.0, "cell 'lstm': forget_bias=", cfg.forget_bias,
           " needs a bias (bias='none' was given)");
  if (has_bias) {
    const Index h = H();
    const Real fb = static_cast<Real>(cfg.forget_bias);
    b_ = &add_param(store, scope, "b", 1, 4 * h, [h, fb](Mat& m, Rng&) {
      m.setZero();
      m.middleCols(h, h).setConstant(fb);   // the f block
    });
  }
}

Index LstmCell::expected_params() const { return 4 * I() * H() + 4 * H() * H() + (b_ ? 4 * H() : 0); }

Var LstmCell::project_inputs(Var x) const { return project(x, *w_, b_); }   // [T*B, 4H]

CellState LstmCell::step(Var a, const CellState& prev, GateRecord* rec) const {
  Graph& g = *prev.h.g;
  const Index h = H();
  Var s = a + matmul(prev.h, g.param(*u_));                  // [B, 4H]
  Var ifo = sigmoid(slice_cols(s, 0, 3 * h));                // [B, 3H]
  Var i = chunk(ifo, 0, h), f = chunk(ifo, 1, h), o = chunk(ifo, 2, h);   // [B, H] each
  Var c_tilde = tanh(chunk(s, 3, h));                        // [B, H]
  Var c = f * prev.c + i * c_tilde;                          // [B, H]
  Var h_new = o * tanh(c);                                   // [B, H]
  if (rec) {
    rec->add("i", i.val());
    rec->add("f", f.val());
    rec->add("o", o.val());
  }
  return {h_new, c};
}

}  // namespace twin
