// LSTM: Hochreiter & Schmidhuber (1997) with a forget gate (Gers et al. 2000), no peepholes;
// row-vector convention:
//   [a_i a_f a_o a_c] = x [W_i W_f W_o W_c] + b     project_inputs, one GEMM   [T*B, 4H]
//   [s_i s_f s_o s_c] = h_prev U                    one [H, 4H] GEMM per step
//   i = σ(a_i + s_i)   f = σ(a_f + s_f)   o = σ(a_o + s_o)   c̃ = tanh(a_c + s_c)
//   c = f ⊙ c_prev + i ⊙ c̃        h = o ⊙ tanh(c)
// The forget-gate block of b starts at cfg.forget_bias (Jozefowicz et al. 2015 use 1); the rest at 0.
// Parameters: W [I,4H], U [H,4H], b [1,4H].
//   expected_params = 4·I·H + 4·H² + 4·H·[bias]
// Table 1: 8 weight matrices, 8 matrix transformations. Gates recorded: "i", "f", "o".
// kernel = "dnnl": an unpadded layer runs as one oneDNN lstm_forward/lstm_backward node on x (ops/dnnl_rnn.h, the
// same equations, gates reordered i f c̃ o); padded batches and gate records keep the step loop (rnn/dnnl_layer.h).
#pragma once
#include "rnn/cell_util.h"
#include "rnn/dnnl_layer.h"

namespace twin {

class LstmCell final : public CellBase {
 public:
  static constexpr CellOptSet kOptions = kEveryCellOptions | CellOptSet{CellOpt::kForgetBias, CellOpt::kKernel};
  static CellTraits traits(const CellConfig&) { return {.has_memory = true}; }
  LstmCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope);
  int k() const override { return 4; }
  bool has_memory() const override { return true; }
  CellState step(Var a, const CellState& prev, GateRecord* rec = nullptr) const override;
  std::optional<SequenceRun> run_layer(Var x, const Mat& mask, Index batch, Dir dir, const CellState& init,
                                       bool record_gates) const override;
  CellInfo info() const override { return {8, 8}; }
  Index expected_params() const override;

 private:
  CellKernel kernel_;
};

}  // namespace twin
