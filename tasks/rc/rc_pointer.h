// R-Net's pointer network (Wang et al., ACL 2017, §3.4, Eq. 9-10) in the form of HKUST-KnowComp/R-Net's func.py
// `ptr_net` / `pointer`, as the LRN paper's reading-comprehension code runs it. Row-vector convention; the passage
// representation P is time-major [Tp*B, D] (D = 2H), the initial state s_0 = r^Q [B, D] (attention pooling of the
// question, nn/attention_pooling.h).
//   P' = drop(P)                                    variational (one mask per passage)
//   m_s = a dropout mask [B, D], one for both steps  (func.py: dropout(ones([B, D])))
//   pointer(s):  e_t = v^T tanh(P'_t W_P + s W_s)    [B, Tp]  (func.py: dense([s ; P'_t], A, no bias) = P' W_P + s W_s)
//                logits = e + (mask − 1)·1e30         padded positions: func.py's softmax_mask (INF = 1e30)
//                c = Σ_t softmax(logits)_t P'_t       [B, D]
//   logits1, c_1 = pointer(s_0 ⊙ m_s)
//   s_1 = Cell(drop(c_1), s_0)                        one step of the pointer cell (a GRU in the LRN code)
//   logits2      = pointer(s_1 ⊙ m_s)
// Parameters `scope/W_P` [D, A], `scope/W_s` [D, A], `scope/v` [A, 1], the cell's under `scope/cell`.
#pragma once
#include <memory>
#include <string>

#include "base/rng.h"
#include "nn/linear.h"
#include "rnn/cell.h"

namespace twin::rc {

struct PointerLogits {
  Var start;   // logits1 [B, Tp], −1e30 at padded positions
  Var end;     // logits2 [B, Tp]
};

class PointerNet {
 public:
  PointerNet() = default;
  // dim D of P and of the state (the cell's hidden size must be D), attn_dim A.
  PointerNet(ParamStore& store, const std::string& scope, const CellConfig& cell, Index dim, Index attn_dim,
             const Init& init);
  PointerNet(PointerNet&&) noexcept;
  PointerNet& operator=(PointerNet&&) noexcept;
  ~PointerNet();

  // init s_0 [B, D], passage P [Tp*B, D], mask [Tp*B, 1] (every passage needs a real token); dropout p.
  PointerLogits apply(Var init, Var passage, const Mat& mask, Index batch, Real p, Rng& rng) const;

 private:
  Linear w_p_, w_s_, v_;
  std::unique_ptr<Cell> cell_;
};

}  // namespace twin::rc
