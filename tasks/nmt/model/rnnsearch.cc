#include "model/rnnsearch.h"

#include "graph/init.h"
#include "ops/ops.h"
#include "rnn/cell_factory.h"
#include "rnn/rnn.h"

namespace twin::nmt {

RnnSearch::RnnSearch(const NmtModelConfig& cfg, Index src_vocab, Index tgt_vocab, ParamStore& store)
    : NmtModel(cfg, src_vocab, tgt_vocab, store) {
  const Init init = init::uniform(static_cast<Real>(cfg.init_scale));
  const int E = cfg.embed, H = cfg.cell.hidden;
  TW_CHECK(H > 0, "model.cell.hidden must be set (> 0)");
  const int A = cfg.attn_dim ? cfg.attn_dim : H;
  enc_fwd_.push_back(make_cell(cfg.cell, E, store, "nmt/enc/fwd"));
  const bool ca = cfg.encoder == NmtEncoder::kCa;
  enc_bwd_.push_back(make_cell(cfg.cell, ca ? E + H : E, store, "nmt/enc/bwd"));
  Index D = ca ? H : 2 * H;
  for (int l = 1; l < cfg.encoder_layers; ++l) {
    enc_fwd_.push_back(make_cell(cfg.cell, static_cast<int>(D), store, "nmt/enc/l" + std::to_string(l)));
    D = H;
  }
  ctx_dim_ = D;
  init_ = Linear(store, "nmt/init", D, H, init);
  attn_ = Attention(store, "nmt/attn", D, H, A, init, /*key_bias=*/true);
  dec1_ = make_cell(cfg.cell, E, store, "nmt/dec/cell1");
  dec2_ = make_cell(cfg.cell, static_cast<int>(D), store, "nmt/dec/cell2");
  for (int l = 1; l < cfg.decoder_layers; ++l)
    dec_extra_.push_back(make_cell(cfg.cell, static_cast<int>(H + D), store, "nmt/dec/l" + std::to_string(l)));
  add_readout_and_output(tgt_vocab, D, store);
}

Encoded RnnSearch::encode(Graph& g, const SeqBatch& src, Rng& rng) const {
  const Index B = src.size();
  const Mat& mask = src.mask;
  Var x = drop(src_emb_.apply(g, src.ids), cfg_.dropout_embed, rng);          // [S*B, E]
  SeqOut f = run_rnn(*enc_fwd_[0], x, mask, B, Dir::kForward);
  Var h;
  if (cfg_.encoder == NmtEncoder::kCa) {
    h = run_rnn(*enc_bwd_[0], concat_cols({x, f.h_all}), mask, B, Dir::kBackward).h_all;   // [S*B, H]
  } else {
    h = concat_cols({f.h_all, run_rnn(*enc_bwd_[0], x, mask, B, Dir::kBackward).h_all});   // [S*B, 2H]
  }
  for (size_t l = 1; l < enc_fwd_.size(); ++l) {
    Var o = run_rnn(*enc_fwd_[l], h, mask, B, Dir::kForward).h_all;
    h = o.cols() == h.cols() ? o + h : o;                                      // residual (GNMT)
  }
  Encoded e;
  e.keys = attn_.precompute(tanh(h), mask, B);                                // attends over tanh(h_i)
  Var s0 = tanh(init_.apply(mean_rows_masked(h, mask, B)));                   // [B, H]
  for (int l = 0; l < layers(); ++l) {
    CellState st;
    st.h = s0;
    if (dec1_->has_memory()) st.c = dec1_->zero_state(g, B).c;
    e.init.push_back(st);
  }
  return e;
}

DecOut RnnSearch::step(const Encoded& enc, Var xp1, const DecState& prev, GateRecord* gates1,
                       GateRecord* gates2) const {
  TW_CHECK(prev.size() == static_cast<size_t>(layers()), "RnnSearch::step: ", prev.size(), " layer states for ",
           layers(), " layers");
  CellState s1 = dec1_->step(xp1, prev[0], gates1);   // s̃_j
  AttnOut att = attn_.step(enc.keys, s1.h);
  CellState s2 = dec2_->step(dec2_->project_inputs(att.ctx), s1, gates2);       // s_j
  DecOut out;
  out.state.push_back(s2);
  Var s = s2.h;
  for (size_t l = 0; l < dec_extra_.size(); ++l) {
    const Cell& cell = *dec_extra_[l];
    CellState sl = cell.step(cell.project_inputs(concat_cols({s, att.ctx})), prev[l + 1]);
    out.state.push_back(sl);
    s = sl.h + s;                                                                // residual (GNMT)
  }
  out.s = s;
  out.ctx = att.ctx;
  out.alpha = att.alpha;
  return out;
}

Var RnnSearch::readout(Var y_prev, Var s, Var ctx, Rng& rng) const {
  return readout_of(y_prev, tanh(s), ctx, rng);
}

}  // namespace twin::nmt
