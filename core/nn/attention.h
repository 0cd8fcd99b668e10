// Additive (Bahdanau) attention, Bahdanau et al. (ICLR 2015), as in RNNsearch / Nematus / the authors' code.
// Row-vector convention; source states are time-major, row s*B+b is position s of sequence b.
//
//   precompute (once per batch):   K = enc W_k (+ b_k)                  [S*B, A]    V = enc   [S*B, D]
//   step (once per query):         e[b,s] = v^T tanh(K[s*B+b] + q[b] W_q)                     [B, S]
//                                  α[b,:] = softmax over the real source positions of e[b,:]  [B, S]
//                                  ctx[b] = Σ_s α[b,s] V[s*B+b]                               [B, D]
//
// Padded source positions get exactly zero weight (masked_softmax_rows), so a padded batch attends like
// each sequence alone. Parameters: `scope/W_k` [D,A], `scope/b_k` [1,A] (optional), `scope/W_q` [Q,A],
// `scope/v` [A,1]. Composed from ops; a fused `attend` op may replace step() later with an equality test.
#pragma once
#include <string>

#include "graph/graph.h"

namespace twin {

struct AttnKeys {
  Var K;        // enc W_k (+ b_k)           [S*B, A]
  Var V;        // enc (the values)          [S*B, D]
  Mat mask;     // [B, S], 1 = real token; empty = no padding
  Var V_heads;  // multi-head attention only: V as [S*B*n, D/n] (reshaped once per batch), or invalid
  Index S = 0;
  Index B = 0;
};

struct AttnOut {
  Var ctx;      // [B, D]
  Var alpha;    // [B, S]
};

// The [B, S] key mask of a time-major [S*B, 1] source mask of 0/1 (empty: nothing padded, an empty result).
Mat attention_key_mask(const Mat& src_mask, Index S, Index B);

class Attention {
 public:
  using Keys = AttnKeys;

  Attention() = default;
  Attention(ParamStore& store, const std::string& scope, Index key_dim, Index query_dim, Index attn_dim,
            const Init& init, bool key_bias = false);

  // enc: [S*B, D] time-major; src_mask: [S*B, 1] of 0/1, or empty when nothing is padded.
  Keys precompute(Var enc, const Mat& src_mask, Index batch) const;
  // query: [B, Q]. Keys may be built by hand (K [S*B, A], V [S*B, any D]) as long as the shapes agree.
  AttnOut step(const Keys& keys, Var query) const;

  Index key_dim() const { return w_k_ ? w_k_->value.rows() : 0; }
  Index query_dim() const { return w_q_ ? w_q_->value.rows() : 0; }
  Index attn_dim() const { return w_k_ ? w_k_->value.cols() : 0; }

 private:
  Param* w_k_ = nullptr;
  Param* b_k_ = nullptr;
  Param* w_q_ = nullptr;
  Param* v_ = nullptr;
};

}  // namespace twin
