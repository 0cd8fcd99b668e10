// SRU: simple recurrent unit, Lei, Zhang & Artzi (2017), "Training RNNs as Fast as CNNs" (arXiv v1/v2 form,
// without the later v_f ⊙ c_prev peephole terms); row-vector convention:
//   [a_f a_r x̃ (x_h)] = x [W_f W_r W (W_h)] + [b_f b_r 0 (0)]   project_inputs, one GEMM
//   f = σ(a_f)      r = σ(a_r)                      (no recurrent GEMM: the step is elementwise)
//   c = f ⊙ c_prev + (1 − f) ⊙ x̃
//   h = r ⊙ g(c) + (1 − r) ⊙ x_h,   g = tanh (default) | identity (cfg.output)
// The highway term needs x in the hidden size: when I == H, x_h = x itself (appended to the projection,
// no parameters); when I != H, x_h = x W_h (unbiased), so k = 4 in both cases: [f, r, x̃, x_h].
// Parameters: W [I,3H] (I == H) or [I,4H] (I != H); b [1,2H] on the gate columns only.
//   expected_params = (I == H ? 3·H² : 4·I·H) + 2·H·[bias]
// cfg.highway_bias is added to b_r at init (on top of bias_init), as the SRU authors' highway_bias
// (github.com/taolei87/sru, SRUCell: bias[H:] = highway_bias): negative starts r near 0, so h near x_h.
// Table 1 style counts: 3 weight matrices / 3 transformations (4 / 4 when I != H). Memory: c.
// Gates recorded: "f", "r".
#pragma once
#include "rnn/cell_util.h"

namespace twin {

class SruCell final : public CellBase {
 public:
  static constexpr CellOptSet kOptions = kEveryCellOptions | CellOptSet{CellOpt::kOutput, CellOpt::kHighwayBias};
  static CellTraits traits(const CellConfig& cfg) {
    return {.output = output_of(parse_output(cfg, kDefaultOutput)), .has_memory = true};
  }
  SruCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope);
  int k() const override { return 4; }
  bool has_memory() const override { return true; }
  Var project_inputs(Var x) const override;
  CellState step(Var a, const CellState& prev, GateRecord* rec = nullptr) const override;
  CellInfo info() const override { return I() == H() ? CellInfo{3, 3} : CellInfo{4, 4}; }
  Index expected_params() const override;

 private:
  static constexpr Act kDefaultOutput = Act::kTanh;
  Act output_;
};

}  // namespace twin
