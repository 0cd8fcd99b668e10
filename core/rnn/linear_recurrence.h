// The cells whose gates read only the input (issue 55): minGRU, minLSTM, QRNN, HGRN and SRU. Each keeps a state
// s whose update is linear in s_{t-1},
//   s_t = a_t ⊙ s_{t-1} + b_t            (or b_t + a_t ⊙ (s_{t-1} − b_t): ScanForm, ops/linear_scan.h)
// with a_t, b_t computed from x_t alone, so all of them are known before the recurrence starts. A whole sequence
// (run_rnn) therefore runs as: the cell's coefficients over all T·B rows at once (a few whole-sequence ops), ONE
// fused linear_scan node for the recurrence, and for the cells with a memory (s = c) the output h = readout(c) over
// all rows plus carry_steps through padding. step() computes the same with the composed ops, one step at a time:
// the decoders (NMT, SNLI) step, and the tests hold the fused run equal to the step loop.
// The state s is CellState::h for the cells without memory (minGRU, minLSTM) and CellState::c for the others.
#pragma once
#include <string_view>
#include <utility>
#include <vector>

#include "ops/linear_scan.h"
#include "rnn/cell_util.h"

namespace twin {

// minGRU's and minLSTM's candidate h̃ = g(p): CellCandidate kDefault and kG are the reference code's g (ops
// minrnn_g), kTanh tanh, kIdentity p itself.
Var candidate(Var p, CellCandidate c);
// Their traits: h = i ⊙ h̃ + f ⊙ h_prev with "i", "f" recorded, twin-gated (CellTraits) when h̃ is column block
// `value_block` of the projection or its tanh, i.e. with the identity or tanh candidate (value_text: tanh_text or
// plain_text, static strings); output identity either way.
CellTraits candidate_traits(const CellConfig& cfg, int value_block, std::string_view tanh_text,
                            std::string_view plain_text);

class LinearRecurrenceCell : public CellBase {
 public:
  using CellBase::CellBase;
  bool runs_whole_sequence() const override { return true; }
  SequenceRun run_sequence(Var xp, const Mat& mask, Index batch, Dir dir, const CellState& init,
                           std::map<std::string, std::vector<Mat>>* gates) const override;
  // One step with the composed ops: s = a ⊙ s_prev + b (or b + a ⊙ (s_prev − b)), then h = readout.
  CellState step(Var xp, const CellState& prev, GateRecord* rec = nullptr) const override;

 protected:
  // a_t, b_t [N, H] of the rows of xp (N = T·B for a sequence, B for a step), and, when `record`, the gates to record
  // ([N, H] each, by name; a cell may leave out what only the record needs when it is off).
  struct Coefficients {
    Var a{}, b{};
    ScanForm form = ScanForm::kConvex;
    Var out_gate{};   // the output gate the readout applies (SRU's r, QRNN's o, HGRN's SiLU(x W_g + b_g)), or unset
    std::vector<std::pair<const char*, Var>> gates{};
  };
  virtual Coefficients coefficients(Var xp, bool record) const = 0;
  // The output h [N, H] from the rows of xp, the state s [N, H] and the output gate, for the cells with a memory;
  // the others' h is s.
  virtual Var readout(Var xp, Var s, Var out_gate) const {
    (void)xp, (void)out_gate;
    return s;
  }
  // The projection as the sequence's coefficients read it: xp itself, but QRNN's width-2 filter mixes in the
  // previous step's rows here (it needs the batch, the mask and the direction, which one step does not have).
  virtual Var sequence_inputs(Var xp, const Mat& mask, Index batch, Dir dir) const {
    (void)mask, (void)batch, (void)dir;
    return xp;
  }
};

}  // namespace twin
