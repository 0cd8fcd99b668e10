#include "rnn/lrn.h"

namespace twin {

LrnCell::LrnCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope)
    : CellBase("lrn", cfg, input_dim, kOptions) {
  output_ = parse_output(cfg, kDefaultOutput);
  add_normed_projection(cfg, store, scope, 3);
}

// v is the third block of [q k v].
CellTraits LrnCell::traits(const CellConfig& cfg) {
  return {.twin_gated = true,
          .value_block = 2,
          .value_text = "v_k = x_k W_v + b_v (the v block of LRN's [q k v] projection)",
          .output = output_of(parse_output(cfg, kDefaultOutput))};
}

Index LrnCell::expected_params() const { return 3 * I() * H() + (ln_g_ ? 6 * H() : (b_ ? 3 * H() : 0)); }

CellState LrnCell::step(Var qkv, const CellState& prev, GateRecord* rec) const {
  const Index h = H();
  if (rec) {
    const auto hp = prev.h.val().array();
    rec->add("i", sigmoid(Mat((qkv.val().middleCols(h, h).array() + hp).matrix())));
    rec->add("f", sigmoid(Mat((qkv.val().leftCols(h).array() - hp).matrix())));
  }
  return {lrn_cell(qkv, prev.h, output_ == Act::kTanh), {}};   // one fused node (ops/fused_cells.h)
}

}  // namespace twin
