// GRU: Cho et al. (2014), gates as written in the ATR paper (Eq. 2-5), row-vector convention:
//   [a_z a_r a_h] = x [W_z W_r W_h] + b             project_inputs, one GEMM   [T*B, 3H]
//   z = σ(a_z + h_prev U_z)      r = σ(a_r + h_prev U_r)
//   reset after U (default, cfg.gru_reset_after, cuDNN/DTMT style):
//       [s_z s_r s_h] = h_prev [U_z U_r U_h]        one [H, 3H] GEMM per step
//       h̃ = tanh(a_h + r ⊙ s_h)
//   reset before U (Cho et al.'s original):
//       [s_z s_r] = h_prev [U_z U_r]                [H, 2H] GEMM, then
//       h̃ = tanh(a_h + (r ⊙ h_prev) U_h)           a second [H, H] GEMM that must wait for r
//   h = (1 − z) ⊙ h_prev + z ⊙ h̃
// Deviation: a single bias per gate, on the input side (no second recurrent bias inside r ⊙ (.)).
// Parameters: W [I,3H], U [H,3H] (reset after) or U [H,2H] + U_h [H,H] (reset before), b [1,3H].
//   expected_params = 3·I·H + 3·H² + 3·H·[bias]
// Table 1: 6 weight matrices, 6 matrix transformations. Gates recorded: "z", "r".
// kernel = "dnnl": an unpadded layer runs as one oneDNN node on x (ops/dnnl_rnn.h): reset after is oneDNN's
// linear-before-reset GRU (lbr_gru) with its recurrent bias at 0, reset before its gru; both with u = 1 − z.
// Padded batches and gate records keep the step loop (rnn/dnnl_layer.h).
#pragma once
#include "rnn/cell_util.h"
#include "rnn/dnnl_layer.h"

namespace twin {

class GruCell final : public CellBase {
 public:
  static constexpr CellOptSet kOptions = kEveryCellOptions | CellOptSet{CellOpt::kGruResetAfter, CellOpt::kKernel};
  static CellTraits traits(const CellConfig&) { return {}; }
  GruCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope);
  int k() const override { return 3; }
  CellState step(Var a, const CellState& prev, GateRecord* rec = nullptr) const override;
  std::optional<SequenceRun> run_layer(Var x, const Mat& mask, Index batch, Dir dir, const CellState& init,
                                       bool record_gates) const override;
  CellInfo info() const override { return {6, 6}; }
  Index expected_params() const override;

 private:
  bool reset_after_;        // U is [H,3H] when set, else [H,2H] beside U_h
  Param* u_h_ = nullptr;    // [H,H], reset before only
  CellKernel kernel_;
};

}  // namespace twin
