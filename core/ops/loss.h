// Fused log-softmax + cross-entropy (never materialises log-probabilities as a separate node), and pick.
#pragma once
#include "graph/graph.h"

namespace twin {

// Per-row loss [N,1]: ℓ_n = -(1-ε) log p_n[y_n] - (ε/V) Σ_v log p_n[v], p = softmax(logits).
Var cross_entropy_rows(Var logits, const Ids& target, Real label_smoothing = 0);
// Σ_n mask_n ℓ_n as [1,1]. mask: [N,1] (0 = padding) or empty (all ones). The caller chooses the
// reduction (divide by tokens, by batch, ...) with scale(): the LM recipes depend on it.
Var cross_entropy(Var logits, const Ids& target, const Mat& mask, Real label_smoothing = 0);
// y[n] = x[n, idx[n]] as [N,1]    (CRF path scores)
Var pick(Var x, const Ids& idx);

}  // namespace twin
