#include "rnn/atr.h"

namespace twin {

AtrCell::AtrCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope)
    : CellBase("atr", cfg, input_dim, kOptions) {
  output_ = parse_output(cfg, kDefaultOutput);
  input_tanh_ = cfg.input_tanh;
  coupled_ = cfg.coupled;
  TW_CHECK(!cfg.layer_norm || cfg.bias == CellBias::kDefault || cfg.bias == CellBias::kNone, "cell 'atr': layer_norm ",
           "brings its own biases (the layer norms' β), so bias must be none or left out, got '",
           name_of(kCellBiasNames, cfg.bias), "'");
  const CellBias bias = cfg.bias != CellBias::kDefault ? cfg.bias : cfg.layer_norm ? CellBias::kNone : CellBias::kInput;
  w_ = &add_param(store, scope, "W", I(), H(), weight_init(cfg));
  u_ = &add_param(store, scope, "U", H(), H(), weight_init(cfg));
  if (bias == CellBias::kInput || bias == CellBias::kBoth) b_ = &add_param(store, scope, "b", 1, H(), bias_init(cfg));
  if (bias == CellBias::kRecurrent || bias == CellBias::kBoth) d_ = &add_param(store, scope, "d", 1, H(), bias_init(cfg));
  if (cfg.layer_norm) {
    std::tie(ln_g_, ln_b_) = add_layer_norm(store, scope, "ln_p", H());
    std::tie(ln_q_g_, ln_q_b_) = add_layer_norm(store, scope, "ln_q", H());
  }
}

// v = p, the whole projection (block 0), also when coupled (i = 1 − f is recorded as "i") or layer-normalised.
CellTraits AtrCell::traits(const CellConfig& cfg) {
  return {.twin_gated = true,
          .value_block = 0,
          .value_tanh = cfg.input_tanh,
          .value_text = cfg.input_tanh ? "v_k = tanh(x_k W + b)" : "v_k = p_k = x_k W + b",
          .output = output_of(parse_output(cfg, kDefaultOutput))};
}

Index AtrCell::expected_params() const {
  return I() * H() + H() * H() + (b_ ? H() : 0) + (d_ ? H() : 0) + (ln_g_ ? 4 * H() : 0);
}

CellState AtrCell::step(Var p, const CellState& prev, GateRecord* rec) const {
  Graph& g = *prev.h.g;
  Var q = d_ ? affine(prev.h, g.param(*u_), g.param(*d_)) : matmul(prev.h, g.param(*u_));   // [B, H]
  if (ln_q_g_) q = layer_norm(q, g.param(*ln_q_g_), g.param(*ln_q_b_));
  if (!coupled_ && !input_tanh_) {
    // The paper's form: one fused node (ops/fused.h, tested equal to the composed ops below).
    if (rec) {
      rec->add("i", sigmoid(Mat(p.val() + q.val())));
      rec->add("f", sigmoid(Mat(p.val() - q.val())));
    }
    return {apply_act(atr_update(p, q, prev.h), output_), {}};   // [B, H]
  }
  Var f = sigmoid(p - q);                                    // [B, H]
  Var i = coupled_ ? one_minus(f) : sigmoid(p + q);          // [B, H]
  Var v = input_tanh_ ? tanh(p) : p;                         // [B, H]
  Var h = apply_act(i * v + f * prev.h, output_);            // [B, H]
  record_gates(rec, {{"i", i}, {"f", f}});
  return {h, {}};
}

}  // namespace twin
