#include "model/dtmt.h"

#include "graph/init.h"
#include "ops/ops.h"
#include "rnn/deep_transition.h"
#include "rnn/rnn.h"

namespace twin::nmt {

namespace {
// The first cell of every transition: model.cell, or a GRU (the L-GRU without l ⊙ H(x)) when the linear
// transformation is off (the config table allows that only for cell.type lgru).
CellConfig first_cell(const NmtModelConfig& cfg) {
  CellConfig c = cfg.cell;
  if (!cfg.dtmt.linear_transform) c.type = "gru";
  return c;
}
}  // namespace

Dtmt::Dtmt(const NmtModelConfig& cfg, Index src_vocab, Index tgt_vocab, ParamStore& store)
    : NmtModel(cfg, src_vocab, tgt_vocab, store) {
  const Init init = init::uniform(static_cast<Real>(cfg.init_scale));
  const int E = cfg.embed, H = cfg.cell.hidden, D = 2 * H;
  TW_CHECK(H > 0, "model.cell.hidden must be set (> 0)");
  const int A = cfg.attn_dim ? cfg.attn_dim : H;
  const DtmtConfig& d = cfg.dtmt;
  const CellConfig first = first_cell(cfg);
  enc_fwd_ = make_deep_transition(first, E, d.encoder_transitions, store, "nmt/enc/fwd");
  enc_bwd_ = make_deep_transition(first, E, d.encoder_transitions, store, "nmt/enc/bwd");
  init_ = Linear(store, "nmt/init", D, H, init);
  attn_ = MultiHeadAdditiveAttention(store, "nmt/attn", D, H, A, H, d.heads, init);
  query_ = make_deep_transition(first, E, d.query_transitions, store, "nmt/dec/query");
  dec_ = make_deep_transition(first, H, d.decoder_transitions, store, "nmt/dec/transition");
  add_readout_and_output(tgt_vocab, /*ctx_dim=*/H, store);   // c_t is W_o's output, [B, H]
}

Encoded Dtmt::encode(Graph& g, const SeqBatch& src, Rng& rng) const {
  const Index B = src.size();
  const Mat& mask = src.mask;
  Var x = drop(src_emb_.apply(g, src.ids), cfg_.dropout_embed, rng);          // [S*B, E]
  Var C = concat_cols({run_rnn(*enc_fwd_, x, mask, B, Dir::kForward).h_all,
                       run_rnn(*enc_bwd_, x, mask, B, Dir::kBackward).h_all});  // [S*B, 2H]
  Encoded e;
  e.keys = attn_.precompute(C, mask, B);                                      // K = C W_k [S*B, A], V = C
  CellState s0;
  s0.h = tanh(init_.apply(mean_rows_masked(C, mask, B)));                     // [B, H]
  e.init.push_back(s0);
  return e;
}

DecOut Dtmt::step(const Encoded& enc, Var xp1, const DecState& prev, GateRecord* gates1, GateRecord* gates2) const {
  TW_CHECK(prev.size() == 1, "Dtmt::step: ", prev.size(), " decoder states for one");
  CellState q = query_->step(xp1, prev[0], gates1);                            // s_{t,L_q} [B, H]
  AttnOut att = attn_.step(enc.keys, q.h);                                     // c_t [B, H]
  CellState s = dec_->step(dec_->project_inputs(att.ctx), q, gates2);          // s_t [B, H]
  DecOut out;
  out.state.push_back(s);
  out.s = s.h;
  out.ctx = att.ctx;
  out.alpha = att.alpha;
  return out;
}

Var Dtmt::readout(Var y_prev, Var s, Var ctx, Rng& rng) const {
  return readout_of(y_prev, s, ctx, rng);
}

}  // namespace twin::nmt
