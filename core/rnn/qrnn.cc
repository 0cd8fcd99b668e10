#include "rnn/qrnn.h"

namespace twin {

QrnnCell::QrnnCell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope)
    : LinearRecurrenceCell("qrnn", cfg, input_dim, kOptions), width_(cfg.filter_width) {
  w_ = &add_param(store, scope, "W", I(), 3 * width_ * H(), weight_init(cfg));   // [W⁰ W¹]
  if (parse_has_bias(cfg)) b_ = &add_param(store, scope, "b", 1, 3 * H(), bias_init(cfg));   // on the W⁰ block
}

CellState QrnnCell::step(Var xp, const CellState& prev, GateRecord* rec) const {
  TW_CHECK(width_ == 1, "cell 'qrnn': filter_width=2 reads the previous step's input, which a single step does not ",
           "have (a decoder steps its cell); filter_width=2 runs over whole sequences only");
  return LinearRecurrenceCell::step(xp, prev, rec);
}

// Width 2: [a_z a_f a_o]_t = (x W⁰ + b)_t + (x W¹)_{t∓1}, the neighbour masked (padding reads as zero) and shifted
// one step along the direction of the run.
Var QrnnCell::sequence_inputs(Var xp, const Mat& mask, Index batch, Dir dir) const {
  if (width_ == 1) return xp;
  const Index n = 3 * H(), steps = xp.rows() / batch;
  Var now = slice_cols(xp, 0, n), before = slice_cols(xp, n, n);   // [T*B, 3H] each
  if (mask.size()) before = mul_col(before, xp.g->constant(mask));
  if (steps == 1) return now;                                      // no neighbour at all
  Var zero = xp.g->constant(Mat::Zero(batch, n));                  // x_{-1} (forward) or x_T (backward)
  const bool fwd = dir == Dir::kForward;
  Var rest = slice_rows(before, fwd ? 0 : batch, (steps - 1) * batch);
  return now + (fwd ? stack_rows({zero, rest}) : stack_rows({rest, zero}));   // [T*B, 3H]
}

QrnnCell::Coefficients QrnnCell::coefficients(Var xp, bool record) const {
  const Index h = H();
  Var z = tanh(chunk(xp, 0, h));                             // [N, H]
  Var f = sigmoid(chunk(xp, 1, h));                          // [N, H]
  Var o = sigmoid(chunk(xp, 2, h));                          // [N, H]
  Coefficients k{.a = f, .b = z, .form = ScanForm::kConvex, .out_gate = o};
  if (record) k.gates = {{"f", f}, {"o", o}};
  return k;
}

Var QrnnCell::readout(Var, Var c, Var o) const { return o * c; }   // h = o ⊙ c      [N, H]

}  // namespace twin
