#include "rnn/mingru.h"

namespace twin {

MinGruCell::MinGruCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope)
    : LinearRecurrenceCell("mingru", cfg, input_dim, kOptions), candidate_(cfg.candidate) {
  add_normed_projection(cfg, store, scope, 2);
}

// v = block 1 of [z | h̃].
CellTraits MinGruCell::traits(const CellConfig& cfg) {
  return candidate_traits(cfg, 1, "v_k = tanh(x_k W_h + b_h) (minGRU's candidate)",
                          "v_k = x_k W_h + b_h (minGRU's candidate)");
}

MinGruCell::Coefficients MinGruCell::coefficients(Var xp, bool record) const {
  (void)record;   // z and 1 − z are needed anyway
  const Index h = H();
  Var z = sigmoid(chunk(xp, 0, h));                          // [N, H]
  Var h_tilde = candidate(chunk(xp, 1, h), candidate_);      // [N, H]
  Var keep = one_minus(z);                                   // 1 − z: the weight of h_prev
  return {.a = keep, .b = h_tilde, .form = ScanForm::kConvex, .gates = {{"i", z}, {"f", keep}}};
}

}  // namespace twin
