// The score kernel of multi-head additive attention (DTMT's attention, nn/multihead_attention.h) as one node,
// in place of n heads' slice / tile / tanh / product / reshape / transpose nodes. Those copied a column block
// of the keys for every head at every decoder step (and added it back in the backward): at Multi30k's shape,
// 16 heads over [S*B, 512] keys, that copying was the largest cost outside the matrix products (perf, DTMT).
//
// Row-major, time-major memory: row s*B+b of K is position s of sequence b; head h owns the columns
// [h a, (h+1) a) of K and q, a = A/n. With the n heads' scores side by side in one matrix:
//   T = tanh(K + q tiled over s)                    [S*B, A]   (kept for the backward)
//   E[b*n + h, s] = Σ_j v_j T[s*B + b, h a + j]     [B*n, S]   (v [a, 1] shared by the heads)
// Backward, with G[s*B+b, h a + j] = dE[b*n+h, s] v_j (1 − T[s*B+b, h a + j]²):
//   dK += G;   dq[b] += Σ_s G[s*B + b];   dv_j += Σ_{s,b,h} dE[b*n+h, s] T[s*B+b, h a + j]
// Row b*n+h of E is head h of sequence b, so a softmax over the rows of E is each head's softmax, and
// E's rows are the rows of the [S*B*n, d]-reshaped values' time blocks (weighted_sum_steps reads them so).
#pragma once
#include "graph/graph.h"

namespace twin {

// K: [S*B, A]; q: [B, A]; v: [A/heads, 1]  ->  [B*heads, S]
Var additive_scores_heads(Var K, Var q, Var v, Index heads);

}  // namespace twin
