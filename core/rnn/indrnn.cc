#include "rnn/indrnn.h"

namespace twin {

IndRnnCell::IndRnnCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope)
    : CellBase("indrnn", cfg, input_dim, kOptions) {
  TW_CHECK(cfg.recurrent_bound > 0, "cell 'indrnn': recurrent_bound must be > 0, got ", cfg.recurrent_bound);
  w_ = &add_param(store, scope, "W", I(), H(), weight_init(cfg));
  if (parse_has_bias(cfg)) b_ = &add_param(store, scope, "b", 1, H(), bias_init(cfg));
  const Real bound = static_cast<Real>(cfg.recurrent_bound);
  u_rec_ = &add_param(store, scope, "u", 1, H(), [bound](Mat& m, Rng& rng) {
    rng.fill_uniform(m, 0, 1);
    m = m.cwiseMin(bound);
  });
  u_rec_->max_abs = bound;
}

CellState IndRnnCell::step(Var p, const CellState& prev, GateRecord*) const {
  Graph& g = *p.g;
  Var uh = mul_tile_rows(prev.h, g.param(*u_rec_));          // u ⊙ h_prev, u repeated over the rows   [B, H]
  return {relu(p + uh), {}};                                 // [B, H]
}

}  // namespace twin
