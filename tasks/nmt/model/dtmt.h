// DTMT: Meng & Zhang (AAAI 2019), "DTMT: A Novel Deep Transition Architecture for Neural Machine Translation"
// (arXiv 1812.07807), as its equations and the authors' released code (DTMT_InDec) build it. Each deep-transition
// step is a first cell reading an input (L-GRU; cell equations in core/rnn/lgru.h, tgru.h) followed by T-GRUs
// that only refine the state (core/rnn/deep_transition.h). Row-vector convention, B sentences, S source steps:
//   encoder       →h_{j,0} = L-GRU(x_j, →h_{j-1,L_s})      →h_{j,k} = T-GRU(→h_{j,k-1}),  k = 1..L_s
//                 ←h likewise right to left;  C_j = [→h_{j,L_s} ; ←h_{j,L_s}]                    [S*B, 2H]
//   init          s_0 = tanh(mean_j(C_j) W_init + b_init)                                         [B, H]
//   query         s_{t,0} = L-GRU(y_{t-1}, s_{t-1})         s_{t,k} = T-GRU(s_{t,k-1}),  k = 1..L_q   [B, H]
//   attention     c_t = MultiHeadAdditive(s_{t,L_q}, C)  (nn/multihead_attention.h: n heads, then W_o)  [B, H]
//   decoder       s_{t,L_q+1} = L-GRU(c_t, s_{t,L_q})      s_{t,L_q+1+k} = T-GRU(.),  k = 1..L_d
//                 s_t = s_{t,L_q+L_d+1}                                                            [B, H]
//   readout       t_t = tanh(y_{t-1} W_y + s_t W_s + c_t W_c + b)                                  [B, R]
//                 p(y_t) = softmax(dropout(t_t) W_o + b_o), or tied: t_t E_tgtᵀ + b_o (needs R = E)
// Keys (model.dtmt.*): L_s, L_q, L_d (each >= 1), heads n (divides A and 2H), linear_transform (H(x) of L-GRU;
// off: a GRU, i.e. L-GRU without l ⊙ H(x)). model.cell.type is the first cell of every transition (lgru as
// the paper; atr for the suite's "ATR in place of L-GRU" row); model.cell.hidden = H; A = model.attn_dim or H.
// Defaults (L_s = L_q = L_d = 4, n = 16) are the released code's, which the paper names as its source
// (arXiv 1812.07807, footnote 1: "We release the source code at: https://github.com/fandongmeng/DTMT_InDec"):
// there DTMTCell (thumt/layers/rnn_cell.py) is an L-GRU then _num_transi = 4 T-GRUs and serves the encoder (both
// directions), the query transition (cell_cond) and the decoder transition; attention_mhead has num_heads = 16.
// The depths and heads the paper's experiments section reports for its main model were NOT checked against
// the paper itself: no copy of it is in ../shared (seeds/001_*.txt is a reader's note giving the equations
// with L_s, L_q, L_d as symbols only, reference/paper_tables.md has no DTMT settings) and this machine has no
// network. Check them before issue 57's runs; where they differ from 4/4/4 and 16, the runs say which they use.
// Deviations from the released code: no layer normalisation inside the cells (the paper's equations have
// none), no bias and sinusoidal timing signal on the embeddings, tanh readout instead of maxout (as the
// suite's RNNSearch), gate biases as in lgru.h/tgru.h.
#pragma once
#include <memory>

#include "model/nmt_model.h"
#include "nn/multihead_attention.h"

namespace twin::nmt {

class Dtmt final : public NmtModel {
 public:
  Dtmt(const NmtModelConfig& cfg, Index src_vocab, Index tgt_vocab, ParamStore& store);

  Encoded encode(Graph& g, const SeqBatch& src, Rng& rng) const override;
  Var project_target(Var y) const override { return query_->project_inputs(y); }
  // gates1: the query transition's gates, gates2: the decoder transition's (T-GRU j's prefixed "t<j>/").
  DecOut step(const Encoded& enc, Var xp1, const DecState& prev, GateRecord* gates1 = nullptr,
              GateRecord* gates2 = nullptr) const override;
  Var readout(Var y_prev, Var s, Var ctx, Rng& rng) const override;
  int layers() const override { return 1; }

 private:
  std::unique_ptr<Cell> enc_fwd_, enc_bwd_, query_, dec_;   // deep transitions
  Linear init_;
  MultiHeadAdditiveAttention attn_;
};

}  // namespace twin::nmt
