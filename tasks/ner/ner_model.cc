#include "ner_model.h"

#include "graph/init.h"
#include "ops/ops.h"
#include "rnn/cell_factory.h"
#include "rnn/rnn.h"

namespace twin::ner {

NerModel::NerModel(const NerModelConfig& cfg, Index word_vocab, Index char_vocab, int num_tags, ParamStore& store)
    : cfg_(cfg), num_tags_(num_tags) {
  const Init init = init::uniform(static_cast<Real>(cfg.init_scale));
  words_ = Embedding(store, "ner/word_emb", word_vocab, cfg.word_embed, init);
  if (cfg.freeze_embeddings) words_.freeze();
  int in = cfg.word_embed;
  if (cfg.char_embed > 0) {
    chars_ = Embedding(store, "ner/char_emb", char_vocab, cfg.char_embed, init);
    char_fwd_ = make_cell(cfg.char_cell, cfg.char_embed, store, "ner/char_fwd");
    char_bwd_ = make_cell(cfg.char_cell, cfg.char_embed, store, "ner/char_bwd");
    in += char_fwd_->hidden_dim() + char_bwd_->hidden_dim();
  }
  fwd_ = make_cell(cfg.cell, in, store, "ner/fwd");
  bwd_ = make_cell(cfg.cell, in, store, "ner/bwd");
  out_ = Linear(store, "ner/emit", fwd_->hidden_dim() + bwd_->hidden_dim(), num_tags, init);
  trans_ = &store.add("ner/crf/trans", num_tags, num_tags, init::constant(0));
  start_ = &store.add("ner/crf/start", 1, num_tags, init::constant(0));
  end_ = &store.add("ner/crf/end", 1, num_tags, init::constant(0));
}

Var NerModel::char_features(Graph& g, const NerBatch& b) const {
  const Index N = b.chars.size();
  Var e = chars_.apply(g, b.chars.ids);                                          // [Lc*N, D_c]
  Var f = run_rnn(*char_fwd_, e, b.chars.mask, N, Dir::kForward).last.h;         // [N, H_c] after the last char
  Var r = run_rnn(*char_bwd_, e, b.chars.mask, N, Dir::kBackward).last.h;        // [N, H_c] after the first
  const Index width = char_fwd_->hidden_dim() + char_bwd_->hidden_dim();
  Var rows = stack_rows({concat_cols({f, r}), g.constant(Mat::Zero(1, width))});  // [N+1, 2H_c]
  return select_rows(rows, b.slot_rows);                                         // [T*B, 2H_c]
}

Var NerModel::emissions(Graph& g, const NerBatch& b, Rng& rng) const {
  const Index B = b.words.size();
  Var x = words_.apply(g, b.words.ids);                                          // [T*B, D_w]
  if (char_fwd_) x = concat_cols({x, char_features(g, b)});
  if (cfg_.dropout > 0) x = dropout(x, static_cast<Real>(cfg_.dropout), rng);
  const Mat& mask = b.words.mask;
  Var h = concat_cols({run_rnn(*fwd_, x, mask, B, Dir::kForward).h_all,
                       run_rnn(*bwd_, x, mask, B, Dir::kBackward).h_all});      // [T*B, 2H]
  return out_.apply(h);                                                          // [T*B, K]
}

Var NerModel::loss(Graph& g, const NerBatch& b, Rng& rng) const {
  Var o = emissions(g, b, rng);
  std::vector<Index> lengths(b.words.lengths.begin(), b.words.lengths.end());
  Var trans = g.param(*trans_), start = g.param(*start_), end = g.param(*end_);
  if (cfg_.objective == CrfObjective::kHinge)
    return crf_hinge_loss(o, lengths, trans, start, end, b.gold, static_cast<Real>(cfg_.eta));
  return crf_nll(o, lengths, trans, start, end, b.gold);
}

std::vector<std::vector<int>> NerModel::decode(const NerBatch& b) const {
  Graph g(Mode::kInfer);
  Rng unused(0);
  Var o = emissions(g, b, unused);
  std::vector<Index> lengths(b.words.lengths.begin(), b.words.lengths.end());
  return crf_decode(o.val(), lengths, trans_->value, &start_->value, &end_->value);
}

}  // namespace twin::ner
