#include "rnn/linear_recurrence.h"

namespace twin {

Var candidate(Var p, CellCandidate c) {
  switch (c) {
    case CellCandidate::kTanh: return tanh(p);
    case CellCandidate::kIdentity: return p;
    case CellCandidate::kDefault:
    case CellCandidate::kG: break;
  }
  return minrnn_g(p);
}

CellTraits candidate_traits(const CellConfig& cfg, int value_block, std::string_view tanh_text,
                            std::string_view plain_text) {
  const bool tanh_v = cfg.candidate == CellCandidate::kTanh;
  if (!tanh_v && cfg.candidate != CellCandidate::kIdentity) return {.output = CellOutput::kIdentity};
  return {.twin_gated = true,
          .value_block = value_block,
          .value_tanh = tanh_v,
          .value_text = tanh_v ? tanh_text : plain_text,
          .output = CellOutput::kIdentity};
}

SequenceRun LinearRecurrenceCell::run_sequence(Var xp, const Mat& mask, Index batch, Dir dir, const CellState& init,
                                               std::map<std::string, std::vector<Mat>>* gates) const {
  const bool reverse = dir == Dir::kBackward;
  const Index steps = xp.rows() / batch;
  Var in = sequence_inputs(xp, mask, batch, dir);                         // [T*B, k·H]
  const Coefficients k = coefficients(in, gates != nullptr);                              // a, b: [T*B, H]
  Var s = linear_scan(k.a, k.b, has_memory() ? init.c : init.h, mask, reverse, k.form);   // [T*B, H]
  Var h = s;
  if (has_memory()) {
    h = readout(in, s, k.out_gate);                                     // [T*B, H]
    if (mask.size()) h = carry_steps(h, init.h, mask, reverse);
  }
  if (gates)
    for (const auto& [name, v] : k.gates) {
      std::vector<Mat>& seq = (*gates)[name];
      for (Index t = 0; t < steps; ++t) seq.push_back(v.val().middleRows(t * batch, batch));
    }
  const Index last = (reverse ? 0 : steps - 1) * batch;   // the last step processed
  return {h, {slice_rows(h, last, batch), has_memory() ? slice_rows(s, last, batch) : Var{}}};
}

CellState LinearRecurrenceCell::step(Var xp, const CellState& prev, GateRecord* rec) const {
  const Coefficients k = coefficients(xp, rec != nullptr);                              // a, b: [B, H]
  Var s_prev = has_memory() ? prev.c : prev.h;                            // [B, H]
  Var s = k.form == ScanForm::kConvex ? k.b + k.a * (s_prev - k.b) : k.a * s_prev + k.b;   // [B, H]
  if (rec)
    for (const auto& [name, v] : k.gates) rec->add(name, v.val());
  if (!has_memory()) return {s, {}};
  return {readout(xp, s, k.out_gate), s};
}

}  // namespace twin
