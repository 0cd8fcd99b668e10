// QRNN with fo-pooling: Bradbury, Merity, Xiong, Socher (ICLR 2017), "Quasi-Recurrent Neural Networks", Eq. (1)
// and (4); reference code salesforce/pytorch-qrnn torchqrnn/qrnn.py (QRNNLayer) and forget_mult.py. A masked
// convolution of filter width k over the inputs gives all gates at once; only the pooling is recurrent.
// Row-vector convention:
//   width 1:  [a_z a_f a_o]_t = x_t W + b                              project_inputs, one GEMM   [T*B, 3H]
//   width 2:  [a_z a_f a_o]_t = x_t W⁰ + x_{t-1} W¹ + b                 the reference code's [x_t, x_{t-1}] W:
//            project_inputs gives x [W⁰ W¹] + [b 0] ([T*B, 6H], one GEMM) and the sequence run adds the W¹ block of
//            the step read before, zero at the first step (the reference code's zeroed x_{-1}); a backward run reads
//            x_{t+1}, the step before in its order, and a padded neighbour counts as zero.
//   z = tanh(a_z)      f = σ(a_f)      o = σ(a_o)
//   c = f ⊙ c_prev + (1 − f) ⊙ z          the paper's fo-pooling, computed as z + f ⊙ (c_prev − z): one fused scan per
//                                         sequence (linear_recurrence.h). The reference code's ForgetMult writes
//                                         f ⊙ z + (1 − f) ⊙ c_prev, the same cell with f and 1 − f swapped.
//   h = o ⊙ c
// Width 2 needs the previous step's input, which one step() does not have: such a QRNN runs in run_rnn (encoders,
// LM, taggers) and refuses step() (decoders). Across an LM's BPTT windows the first step of a window sees a zero
// x_{t-1} (the reference code's save_prev_x carries it over; our carried state is h and c only).
// Not part of the cell: the reference code's zoneout on f.
// Parameters: W [I,3H] (width 1) or [I,6H] (width 2), b [1,3H] (bias default).
//   expected_params = 3·width·I·H + 3·H·[bias]
// Table 1 style counts: 3·width weight matrices and transformations, none of them recurrent. Memory: c.
// Gates recorded: "f", "o".
#pragma once
#include "rnn/linear_recurrence.h"

namespace twin {

class QrnnCell final : public LinearRecurrenceCell {
 public:
  static constexpr CellOptSet kOptions = kEveryCellOptions | CellOptSet{CellOpt::kFilterWidth};
  static CellTraits traits(const CellConfig&) { return {.has_memory = true}; }
  QrnnCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope);
  int k() const override { return 3 * width_; }
  bool has_memory() const override { return true; }
  CellState step(Var xp, const CellState& prev, GateRecord* rec = nullptr) const override;
  CellInfo info() const override { return {3 * width_, 3 * width_}; }
  Index expected_params() const override { return 3 * width_ * I() * H() + (b_ ? 3 * H() : 0); }

 protected:
  Coefficients coefficients(Var xp, bool record) const override;
  Var readout(Var xp, Var c, Var o) const override;
  Var sequence_inputs(Var xp, const Mat& mask, Index batch, Dir dir) const override;

 private:
  int width_;
};

}  // namespace twin
