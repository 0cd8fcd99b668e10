// Multi-head additive attention of one query per sequence over a time-major memory, as DTMT's released code
// builds it (Meng & Zhang, AAAI 2019; DTMT_InDec's attention_mhead): the additive attention of Bahdanau et
// al. (2015) split into n heads, each over its own column blocks of the keys, the query and the memory.
// Row-vector convention; row s*B+b of the memory is position s of sequence b. With a = A/n, d = D/n and
// X_h the columns [h x, (h+1) x) of X:
//   precompute (once per batch):  K = enc W_k                                    [S*B, A]   V = enc   [S*B, D]
//   step (once per query):        q = query W_q                                              [B, A]
//                                 e_h[b,s] = vᵀ tanh(K_h[s*B+b] + q_h[b])   (v [a, 1] shared by the heads)
//                                 α_h[b,:] = softmax over the real positions of e_h[b,:]   [B, S]
//                                 z_h[b] = Σ_s α_h[b,s] V_h[s*B+b]                          [B, d]
//                                 c = [z_1 … z_n] W_o + b_o                                 [B, O]
// The reported α is the mean of the heads' α_h (for alignments and the beam search's attention output).
// A step is a few nodes for all heads at once: the scores by one kernel (ops/additive_heads.h), every head's
// softmax as the rows of one [B*n, S] matrix, and the weighted sums by weighted_sum_steps over the memory
// reshaped once per batch to [S*B*n, d] (AttnKeys::V_heads; a row-major reshape puts head h of row s*B+b at
// row (s*B+b)*n + h). Slicing each head out of the keys and the memory at every step, as the first version
// did, copied both per head and query and was the largest cost outside the matrix products (perf, DTMT);
// tests/grad_nn.cc holds this step equal to that per-head composition, values and gradients.
// Deviations from the released code: none in the equations; its `k_transform`, `q_transform` (unbiased),
// `logits` (v) and `output_transform` (biased) are W_k, W_q, v and W_o, b_o. Parameters: scope/W_k [D,A], scope/W_q [Q,A], scope/v [a,1], scope/out/{W [D,O], b}.
#pragma once
#include <string>
#include <vector>

#include "nn/attention.h"
#include "nn/linear.h"

namespace twin {

class MultiHeadAdditiveAttention {
 public:
  MultiHeadAdditiveAttention() = default;
  // heads must divide attn_dim and key_dim.
  MultiHeadAdditiveAttention(ParamStore& store, const std::string& scope, Index key_dim, Index query_dim,
                             Index attn_dim, Index out_dim, Index heads, const Init& init);

  // enc: [S*B, D] time-major; src_mask: [S*B, 1] of 0/1, or empty when nothing is padded.
  AttnKeys precompute(Var enc, const Mat& src_mask, Index batch) const;
  // query: [B, Q] -> ctx [B, O], alpha [B, S] (the heads' mean).
  AttnOut step(const AttnKeys& keys, Var query) const;

  Index heads() const { return heads_; }
  Index out_dim() const { return out_.out_dim(); }

 private:
  Param* w_k_ = nullptr;
  Param* w_q_ = nullptr;
  Param* v_ = nullptr;
  Linear out_;
  Index heads_ = 0;
};

}  // namespace twin
