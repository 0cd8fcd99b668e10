// R-Net's gated dot attention: Wang et al. (ACL 2017) "Gated self-matching networks for reading comprehension and
// question answering", §3.2-3.3, in the form of HKUST-KnowComp/R-Net's func.py `dot_attention`, the code the LRN
// paper's reading-comprehension model runs (LRN repository, rc/rnet). Row-vector convention, time-major: x is
// [Tx*B, Dx] (the sequence that attends: the passage), m is [Tm*B, Dm] (the memory: the question, or x itself for
// self-matching). Per sequence b, with A = attn_dim:
//   x' = drop(x),  m' = drop(m)                            variational dropout (seq_dropout), separate masks
//   s_ij = relu(x'_i W_x) · relu(m'_j W_m) / √A             [Tx, Tm]
//   α_i  = softmax over the real j of s_i                  padded memory positions weigh exactly 0
//   c_i  = Σ_j α_ij m_j                                     [Dm] (the memory undropped, as func.py)
//   r_i  = [x_i ; c_i]                                      [Dx + Dm]
//   g_i  = σ(drop(r_i) W_g)                                 the gate, [Dx + Dm]
//   y_i  = r_i ⊙ g_i                                        output [Tx*B, Dx + Dm]
// Parameters `scope/W_x` [Dx, A], `scope/W_m` [Dm, A], `scope/W_g` [Dx+Dm, Dx+Dm], no biases (func.py's
// dense(use_bias=False)). Padded rows of x get finite outputs that the caller ignores.
// Each sequence's scores are one [Tx, A] x [A, Tm] product of rows gathered by select_rows: the suite has no batched
// product op, and scaled_dot_attention (ops/attention_ops.h) needs equal lengths and values as wide as the keys.
// Composed from gradient-checked ops; tests/grad_rc.cc checks the layer in double.
#pragma once
#include <string>
#include <vector>

#include "base/rng.h"
#include "graph/graph.h"
#include "graph/init.h"

namespace twin {

class GatedDotAttention {
 public:
  GatedDotAttention() = default;
  GatedDotAttention(ParamStore& store, const std::string& scope, Index x_dim, Index mem_dim, Index attn_dim,
                    const Init& init);

  // x [Tx*B, Dx], m [Tm*B, Dm], mem_mask [Tm*B, 1] of 0/1 (or empty: nothing padded); dropout p on x, m and r
  // (training graphs only). alpha_out, when given, receives α of each sequence b, [Tx, Tm], in batch order.
  Var apply(Var x, Var m, const Mat& mem_mask, Index batch, Real p, Rng& rng,
            std::vector<Mat>* alpha_out = nullptr) const;

  Index x_dim() const { return w_x_ ? w_x_->value.rows() : 0; }
  Index mem_dim() const { return w_m_ ? w_m_->value.rows() : 0; }
  Index attn_dim() const { return w_x_ ? w_x_->value.cols() : 0; }

 private:
  Param* w_x_ = nullptr;
  Param* w_m_ = nullptr;
  Param* w_g_ = nullptr;
};

// The rows t*B + b (t < steps) of sequence b in a time-major [steps*B, D] matrix, in time order.
Ids sequence_rows(Index b, Index steps, Index batch);

}  // namespace twin
