// RNNSearch (Bahdanau et al. 2015) as the ATR paper builds it (Zhang et al. 2018, Appendix A.1, Eq. 11-13),
// with any registered cell:
//   encoder   h_i = [→h_i ; ←h_i]                                   bidi: [S*B, 2H]
//             CA (Zhang et al. 2017b): →h_i over x_i, then ←h_i over [x_i ; →h_i]; h_i = ←h_i   [S*B, H]
//             deep (GNMT-style, Wu et al. 2016): layers 2.. are forward cells over the layer below, residual
//             when the widths agree
//   init      s_0 = tanh(mean_i(h_i) W_init + b_init)                 [B, H]
//   decoder   s̃_j = Cell1(s_{j-1}, y_{j-1})                           [B, H]
//             c_j = Σ_i α_ji tanh(h_i),  α_j = softmax_i(v^T tanh(tanh(h_i) W_k + s̃_j W_q))   [B, D]
//             s_j = Cell2(s̃_j, c_j)                                   [B, H]
//             deep: s^l_j = Cell_l(s^l_{j-1}, [s^{l-1}_j ; c_j]) + s^{l-1}_j for l = 2..L
//   readout   t_j = tanh(y_{j-1} W_y + tanh(s_j) W_s + c_j W_c + b)    [B, R]   (Eq. 12's g, Nematus' deep output)
//             p(y_j) = softmax(dropout(t_j) W_o + b_o), or tied: t_j E_tgt^T + b_o (needs R = E)
// Cells with a memory (LSTM, RAN, SRU) carry c through Cell1 -> Cell2 as the state pair; c_0 = 0.
#pragma once
#include <memory>
#include <vector>

#include "model/nmt_model.h"

namespace twin::nmt {

class RnnSearch final : public NmtModel {
 public:
  RnnSearch(const NmtModelConfig& cfg, Index src_vocab, Index tgt_vocab, ParamStore& store);

  Encoded encode(Graph& g, const SeqBatch& src, Rng& rng) const override;
  Var project_target(Var y) const override { return dec1_->project_inputs(y); }
  // gates1/gates2: Cell1's and Cell2's gates.
  DecOut step(const Encoded& enc, Var xp1, const DecState& prev, GateRecord* gates1 = nullptr,
              GateRecord* gates2 = nullptr) const override;
  Var readout(Var y_prev, Var s, Var ctx, Rng& rng) const override;
  int layers() const override { return static_cast<int>(1 + dec_extra_.size()); }

 private:
  std::vector<std::unique_ptr<Cell>> enc_fwd_, enc_bwd_;   // enc_bwd_ has one cell (layer 1)
  Linear init_;
  Attention attn_;
  std::unique_ptr<Cell> dec1_, dec2_;
  std::vector<std::unique_ptr<Cell>> dec_extra_;
  Index ctx_dim_ = 0;
};

}  // namespace twin::nmt
