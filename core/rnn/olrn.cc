#include "rnn/olrn.h"

namespace twin {

OlrnCell::OlrnCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope)
    : CellBase("olrn", cfg, input_dim, kOptions) {
  output_ = parse_output(cfg, kDefaultOutput);
  add_normed_projection(cfg, store, scope, 4);
}

Index OlrnCell::expected_params() const { return 4 * I() * H() + (ln_g_ ? 8 * H() : (b_ ? 4 * H() : 0)); }

CellState OlrnCell::step(Var qkvs, const CellState& prev, GateRecord* rec) const {
  const Index h = H();
  Var q = chunk(qkvs, 0, h), k = chunk(qkvs, 1, h), v = chunk(qkvs, 2, h), s = chunk(qkvs, 3, h);   // [B, H]
  Var i = sigmoid(k + prev.h);                               // [B, H]
  Var f = sigmoid(q - prev.h);                               // [B, H]
  Var c = i * v + f * prev.h;                                // [B, H]
  Var o = sigmoid(s - c);                                    // [B, H]
  Var h_new = o * apply_act(c, output_);                     // [B, H]
  record_gates(rec, {{"i", i}, {"f", f}, {"o", o}});
  return {h_new, {}};
}

}  // namespace twin
