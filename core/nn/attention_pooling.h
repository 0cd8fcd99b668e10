// Attention pooling of a sequence into one vector, R-Net's question pooling r^Q (Wang et al., ACL 2017, Eq. 11) in
// the form of HKUST-KnowComp/R-Net's func.py `summ` (no learned query vector V_r^Q: the score reads the memory only).
// Time-major memory u [T*B, D], per sequence b, A = attn_dim:
//   s_t = v^T tanh(drop(u_t) W + b)          [T]    (variational dropout on the memory, seq_dropout)
//   α   = softmax over the real t of s       padded positions weigh exactly 0
//   y   = Σ_t α_t u_t                        [B, D] (the memory undropped, as func.py)
// Parameters `scope/W` [D, A], `scope/b` [1, A] (zero), `scope/v/W` [A, 1]. Composed from gradient-checked ops.
#pragma once
#include <string>

#include "base/rng.h"
#include "graph/graph.h"
#include "graph/init.h"
#include "nn/linear.h"

namespace twin {

// A time-major column of scores [T*B, 1] as [B, T] (row b holds sequence b's scores in time order).
Var scores_by_sequence(Var col, Index batch);
// A time-major mask [T*B, 1] as [B, T].
Mat mask_by_sequence(const Mat& mask, Index batch);

class AttentionPooling {
 public:
  AttentionPooling() = default;
  AttentionPooling(ParamStore& store, const std::string& scope, Index dim, Index attn_dim, const Init& init);

  // memory [T*B, D], mask [T*B, 1] of 0/1 (or empty), dropout p on the memory's scores input -> [B, D].
  Var apply(Var memory, const Mat& mask, Index batch, Real p, Rng& rng) const;

 private:
  Linear w_;   // W, b
  Linear v_;   // v, no bias
};

}  // namespace twin
