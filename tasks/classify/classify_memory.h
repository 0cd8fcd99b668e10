// The LRN paper's memory-weight analysis (../shared/seeds/003_*.txt, "Structure Analysis") and ATR Eq. 10, for a
// classifier whose encoder is ONE forward twin-gated cell (ATR or LRN) read from a zero state. Such a cell
// updates h_t = g(i_t ⊙ v_t + f_t ⊙ h_{t-1}); with g = identity it unrolls exactly into
//   h_T = Σ_k g_k ⊙ v_k,      g_k = i_k ⊙ Π_{l=k+1..T} f_l                       (rnn/gates.h)
// where v_k is the token's value: ATR v_k = p_k = x_k W + b (tanh(p_k) with input_tanh), LRN v_k = x_k W_v + b_v
// (the third block of its [q k v] projection). g_k is the weight token k has in the final state: the input gate
// lets the token in (short-term memory), the chain of later forget gates decays it. With g = tanh the sum is
// only the approximation the ATR paper writes with ≈, and the reconstruction error says how far off it is.
#pragma once
#include <string>
#include <vector>

#include "base/real.h"
#include "classify_model.h"

namespace twin::classify {

// "" when the model supports the analysis, else why not (encoder, direction, cell).
std::string memory_unsupported_reason(const ClassifyModelConfig& c);
// True when the unrolled sum is exact: identity output (ATR's default, LRN's "identity").
bool memory_is_exact(const ClassifyModelConfig& c);

struct MemoryWeights {
  std::vector<double> weights;       // [T] mean over the H units of g_k (weights of the final state h_T)
  Mat weights_units;                 // [T, H] g_k
  Mat weights_by_step;               // [T, T] (t, k): mean over units of g_k in the state after step t (0 for k > t)
  std::vector<double> input_gate;    // [T] mean over units of i_t
  std::vector<double> forget_gate;   // [T] mean over units of f_t
  Mat final_state;                   // [1, H] h_T as the recurrence computed it
  Mat reconstructed;                 // [1, H] Σ_k g_k ⊙ v_k (summed in double)
  double rel_error = 0;              // ||reconstructed − h_T||₂ / ||h_T||₂
  double max_abs_error = 0;          // max_h |reconstructed − h_T|
};

// The analysis of one sentence (ids, no padding), in inference mode. Throws when the model is unsupported.
MemoryWeights memory_weights(const ClassifyModel& m, const Ids& sentence);

}  // namespace twin::classify
