// Fused multi-head scaled dot-product attention over time-major sequences (Vaswani et al. 2017), with the
// optional relative position representations of Shaw, Uszkoreit & Vaswani (NAACL 2018).
//
// q, k, v: [T*B, D], row t*B + b is position t of sequence b; head h owns columns [h d_h, (h+1) d_h),
// d_h = D / heads. Per sequence b and head h, with Q, K, V its [T, d_h] blocks and s = 1/√d_h:
//   e_ij = s Q_i·(K_j + a^K_ij)          α_i = softmax over the real keys j of e_i   (padded j: α_ij = 0)
//   z_i  = Σ_j α_ij (V_j + a^V_ij)        a^K_ij = rel_k[r(i,j)], a^V_ij = rel_v[r(i,j)],
//   r(i,j) = clip(j − i, k) + k,  clip(x, k) = max(−k, min(k, x));   rel_k, rel_v: [2k+1, d_h], shared by heads.
// The output is [T*B, D] with z of head h in its columns. Padded query rows attend to the real keys as well:
// their outputs are finite but meaningless.
//
// Backward (per sequence and head; dZ the incoming gradient, P_ir = s Q_i·rel_k[r], A_ir = Σ_{j: r(i,j)=r} α_ij):
//   dα_ij = dZ_i·(V_j + a^V_ij)           dV += αᵀ dZ            d rel_v += Aᵀ dZ
//   dE_ij = α_ij (dα_ij − Σ_j' α_ij' dα_ij')
//   dQ += s dE K + s dP rel_k             dK += s dEᵀ Q          d rel_k += s dPᵀ Q,  dP_ir = Σ_{j: r(i,j)=r} dE_ij
// Work is parallel over (sequence, head) pairs when large enough; the relative-table gradients are summed
// per pair and then in a fixed order, so results do not depend on the thread count.
#pragma once
#include <algorithm>
#include <vector>

#include "graph/graph.h"

namespace twin {

// r(i, j) = clip(j − i, k) + k: the row of the relative tables used by query i and key j.
inline Index relative_index(Index i, Index j, Index clip_k) { return std::clamp(j - i, -clip_k, clip_k) + clip_k; }

// mask: [T*B, 1] of 0/1 (or empty: nothing padded); every sequence needs at least one real position.
// rel_k / rel_v: [2 clip_k + 1, D/heads] or invalid Vars (no relative term); each may be given alone.
// weights_out, when given, receives `heads` more matrices [B*T, T]: row b*T + i holds α of query i of
// sequence b over the keys (head order).
Var scaled_dot_attention(Var q, Var k, Var v, const Mat& mask, Index batch, Index heads, Var rel_k = {},
                         Var rel_v = {}, Index clip_k = 0, std::vector<Mat>* weights_out = nullptr);

}  // namespace twin
