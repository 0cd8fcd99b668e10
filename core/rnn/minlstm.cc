#include "rnn/minlstm.h"

namespace twin {

MinLstmCell::MinLstmCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope)
    : LinearRecurrenceCell("minlstm", cfg, input_dim, kOptions),
      candidate_(cfg.candidate),
      normalize_(cfg.normalize_gates) {
  TW_CHECK(cfg.forget_bias == 0.0 || cfg.bias != CellBias::kNone, "cell 'minlstm': forget_bias=", cfg.forget_bias,
           " needs a bias (bias='none' was given)");
  add_normed_projection(cfg, store, scope, 3);
  if (b_) b_->value.leftCols(H()).array() += static_cast<Real>(cfg.forget_bias);   // b_f, the first block
}

// v = block 2 of [f | i | h̃].
CellTraits MinLstmCell::traits(const CellConfig& cfg) {
  return candidate_traits(cfg, 2, "v_k = tanh(x_k W_h + b_h) (minLSTM's candidate)",
                          "v_k = x_k W_h + b_h (minLSTM's candidate)");
}

MinLstmCell::Coefficients MinLstmCell::coefficients(Var xp, bool record) const {
  const Index h = H();
  Var a_f = chunk(xp, 0, h), a_i = chunk(xp, 1, h);          // [N, H] each
  Var h_tilde = candidate(chunk(xp, 2, h), candidate_);      // [N, H]
  if (normalize_) {
    // f / (f + i) = 1 / (1 + i/f), i/f = exp(softplus(−a_f) − softplus(−a_i)): f' = σ(softplus(−a_i) − softplus(−a_f))
    Var f = sigmoid(softplus(scale(a_i, -1)) - softplus(scale(a_f, -1)));   // f' [N, H]
    Coefficients k{.a = f, .b = h_tilde, .form = ScanForm::kConvex};
    if (record) k.gates = {{"f", f}, {"i", one_minus(f)}};   // i' = 1 − f'
    return k;
  }
  Var f = sigmoid(a_f), i = sigmoid(a_i);                    // [N, H] each
  return {.a = f, .b = i * h_tilde, .form = ScanForm::kAffine, .gates = {{"f", f}, {"i", i}}};
}

}  // namespace twin
