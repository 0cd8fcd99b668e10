#include "rnn/hgrn.h"

namespace twin {

HgrnCell::HgrnCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope)
    : LinearRecurrenceCell("hgrn", cfg, input_dim, kOptions), gamma_(static_cast<Real>(cfg.forget_lower_bound)) {
  TW_CHECK(cfg.forget_lower_bound >= 0 && cfg.forget_lower_bound < 1, "cell 'hgrn': forget_lower_bound must be in ",
           "[0, 1), got ", cfg.forget_lower_bound);
  add_normed_projection(cfg, store, scope, 3);
}

HgrnCell::Coefficients HgrnCell::coefficients(Var xp, bool record) const {
  const Index h = H();
  Var mu = sigmoid(chunk(xp, 0, h));                                     // μ [N, H]
  Var lambda = gamma_ > 0 ? add_scalar(scale(mu, 1 - gamma_), gamma_) : mu;   // λ = γ + (1 − γ) μ   [N, H]
  Var p_c = chunk(xp, 1, h);
  Var c_in = p_c * sigmoid(p_c);                                         // c̃ = SiLU(p_c)   [N, H]
  Var a_g = chunk(xp, 2, h);
  Var g = a_g * sigmoid(a_g);                                            // SiLU(a_g)       [N, H]
  Coefficients k{.a = lambda, .b = c_in, .form = ScanForm::kConvex, .out_gate = g};
  if (record) k.gates = {{"f", lambda}};
  return k;
}

Var HgrnCell::readout(Var, Var s, Var g) const { return s * g; }   // o = s ⊙ SiLU(a_g)      [N, H]

}  // namespace twin
