#include "model/nmt_model.h"

#include "graph/init.h"
#include "model/dtmt.h"
#include "model/rnnsearch.h"
#include "ops/ops.h"

namespace twin::nmt {

NmtModel::NmtModel(const NmtModelConfig& cfg, Index src_vocab, Index tgt_vocab, ParamStore& store) : cfg_(cfg) {
  const Init init = init::uniform(static_cast<Real>(cfg.init_scale));
  src_emb_ = Embedding(store, "nmt/src_emb", src_vocab, cfg.embed, init);
  tgt_emb_ = Embedding(store, "nmt/tgt_emb", tgt_vocab, cfg.embed, init);
}

void NmtModel::add_readout_and_output(Index tgt_vocab, Index ctx_dim, ParamStore& store) {
  const Init init = init::uniform(static_cast<Real>(cfg_.init_scale));
  const Index E = cfg_.embed, H = cfg_.cell.hidden, R = cfg_.readout ? cfg_.readout : E;
  read_y_ = Linear(store, "nmt/read/y", E, R, init);
  read_s_ = Linear(store, "nmt/read/s", H, R, init, /*bias=*/false);
  read_c_ = Linear(store, "nmt/read/c", ctx_dim, R, init, /*bias=*/false);
  if (cfg_.tie_target) out_bias_ = &store.add("nmt/out/b", 1, tgt_vocab, init::constant(0));
  else out_ = Linear(store, "nmt/out", R, tgt_vocab, init);
}

Var NmtModel::readout_of(Var y_prev, Var s_term, Var ctx, Rng& rng) const {
  Var t = tanh(read_y_.apply(y_prev) + read_s_.apply(s_term) + read_c_.apply(ctx));   // [N, R]
  return drop(t, cfg_.dropout_readout, rng);
}

Var NmtModel::drop(Var x, double p, Rng& rng) const {
  return p > 0 ? dropout(x, static_cast<Real>(p), rng) : x;
}

Var NmtModel::embed_target(Graph& g, const Ids& ids, Rng& rng) const {
  return drop(tgt_emb_.apply(g, ids), cfg_.dropout_embed, rng);
}

Var NmtModel::logits(Var y_prev, Var s, Var ctx, Rng& rng) const {
  Var t = readout(y_prev, s, ctx, rng);
  return cfg_.tie_target ? add_row(tgt_emb_.tied_logits(t), t.g->param(*out_bias_)) : out_.apply(t);
}

Var NmtModel::loss(Graph& g, const NmtBatch& batch, Rng& rng, double label_smoothing) const {
  const Index B = batch.src.size(), T = batch.tgt_in.steps();
  Encoded enc = encode(g, batch.src, rng);
  Var y = embed_target(g, batch.tgt_in.flat(), rng);                          // [T*B, E]
  Var xp = project_target(y);                                                 // [T*B, k*H]
  std::vector<Var> s_all, c_all;
  s_all.reserve(static_cast<size_t>(T));
  c_all.reserve(static_cast<size_t>(T));
  DecState st = enc.init;
  for (Index j = 0; j < T; ++j) {
    // Padded target steps need no carry: nothing after a sentence's end reaches its loss.
    DecOut o = step(enc, slice_rows(xp, j * B, B), st);
    st = std::move(o.state);
    s_all.push_back(o.s);
    c_all.push_back(o.ctx);
  }
  Var t = readout(y, stack_rows(s_all), stack_rows(c_all), rng);             // [T*B, R]
  // The softmax layer and the loss as one node (ops/output_loss.h), the same numbers as cross_entropy over
  // logits(): logits [T*B, V] = t Eᵀ + b (tied, E the target embedding table) or t W + b.
  const Ids& y_out = batch.tgt_out.flat();
  const Real eps = static_cast<Real>(label_smoothing);
  if (cfg_.tie_target)
    return linear_cross_entropy(t, g.param(tgt_emb_.table()), true, g.param(*out_bias_), y_out, batch.tgt_out.mask, eps);
  Param* b = out_.bias();
  return linear_cross_entropy(t, g.param(out_.weight()), false, b ? g.param(*b) : Var{}, y_out, batch.tgt_out.mask, eps);
}

std::unique_ptr<NmtModel> make_nmt_model(const NmtModelConfig& cfg, Index src_vocab, Index tgt_vocab, ParamStore& store) {
  if (cfg.kind == NmtKind::kDtmt) return std::make_unique<Dtmt>(cfg, src_vocab, tgt_vocab, store);
  return std::make_unique<RnnSearch>(cfg, src_vocab, tgt_vocab, store);
}

}  // namespace twin::nmt
