#include "classify_model.h"

#include <cmath>

#include "graph/init.h"
#include "ops/ops.h"
#include "rnn/cell_factory.h"
#include "rnn/rnn.h"

namespace twin::classify {

namespace {

void check_config(const ClassifyModelConfig& c, int num_labels) {
  TW_CHECK(c.embed > 0, "model.embed must be positive, got ", c.embed);
  TW_CHECK(num_labels >= 2, "a classifier needs at least 2 labels, got ", num_labels);
  if (c.encoder == Encoder::kRnn) {
    TW_CHECK(c.cell.hidden > 0, "model.cell.hidden must be set (> 0)");
  } else {
    TW_CHECK(c.pooling != Pooling::kLast, "model.pooling \"last\" needs the rnn encoder: a self-attention block has no "
             "final state (use \"mean\" or \"attentive\")");
    TW_CHECK(!c.bidirectional, "model.bidirectional is an rnn setting; the self-attention block sees both "
             "directions already");
  }
}

Index pooled_width(const ClassifyModelConfig& c) {
  if (c.encoder == Encoder::kSelfAttention) return c.embed;
  return (c.bidirectional ? 2 : 1) * static_cast<Index>(c.cell.hidden);
}

SelfAttentionConfig sa_config(const ClassifyModelConfig& c) {
  SelfAttentionConfig s = c.self_attention;
  s.dim = c.embed;
  return s;
}

}  // namespace

ClassifyModel::ClassifyModel(const ClassifyModelConfig& cfg, Index vocab, int num_labels, ParamStore& store)
    : cfg_(cfg), num_labels_(num_labels) {
  check_config(cfg, num_labels);
  const Init init = init::uniform(static_cast<Real>(cfg.init_scale));
  const int E = cfg.embed;
  feat_ = pooled_width(cfg);
  emb_ = Embedding(store, "cls/emb", vocab, E, init);
  if (cfg.freeze_embeddings) emb_.freeze();
  if (cfg.encoder == Encoder::kRnn) {
    fwd_ = make_cell(cfg.cell, E, store, "cls/fwd");
    if (cfg.bidirectional) bwd_ = make_cell(cfg.cell, E, store, "cls/bwd");
  } else {
    sa_ = std::make_unique<SelfAttentionEncoder>(sa_config(cfg), store, "cls/sa", init);
  }
  if (cfg.pooling == Pooling::kAttentive) {
    if (cfg.attention == PoolScore::kAdditive) {
      const Index A = cfg.attn_dim > 0 ? cfg.attn_dim : feat_;
      pool_w_ = Linear(store, "cls/pool", feat_, A, init);                     // W_a [F, A], b_a [1, A]
      pool_v_ = &store.add("cls/pool/v", A, 1, init);                          // v [A, 1]
    } else {
      pool_v_ = &store.add("cls/pool/u", feat_, 1, init);                      // u [F, 1]
    }
  }
  out_ = Linear(store, "cls/out", feat_, num_labels, init);                    // W_o [F, C], b_o [1, C]
}

ClassifyModel::~ClassifyModel() = default;

Index ClassifyModel::expected_params(const ClassifyModelConfig& cfg, Index vocab, int num_labels) {
  check_config(cfg, num_labels);
  const Index F = pooled_width(cfg), C = num_labels;
  Index n = vocab * cfg.embed + F * C + C;
  if (cfg.encoder == Encoder::kRnn) {
    ParamStore scratch;
    n += (cfg.bidirectional ? 2 : 1) * make_cell(cfg.cell, cfg.embed, scratch, "x")->expected_params();
  } else {
    n += SelfAttentionEncoder::expected_params(sa_config(cfg));
  }
  if (cfg.pooling == Pooling::kAttentive) {
    const Index A = cfg.attn_dim > 0 ? cfg.attn_dim : F;
    n += cfg.attention == PoolScore::kAdditive ? F * A + 2 * A : F;
  }
  return n;
}

Var ClassifyModel::drop(Var x, double p, Rng& rng) const {
  return p > 0 ? dropout(x, static_cast<Real>(p), rng) : x;
}

Var ClassifyModel::pool(Var states, const SeqBatch& text, Mat* pool_weights) const {
  const Index B = text.size(), T = text.steps();
  if (cfg_.pooling == Pooling::kMean) return mean_rows_masked(states, text.mask, B);           // [B, F]
  Graph& g = *states.g;
  Var e_col = cfg_.attention == PoolScore::kAdditive
                  ? matmul(tanh(pool_w_.apply(states)), g.param(*pool_v_))             // [T*B, 1]
                  : scale(matmul(states, g.param(*pool_v_)),
                          static_cast<Real>(1.0 / std::sqrt(static_cast<double>(feat_))));
  Var e = transpose(reshape(e_col, T, B));                                             // [B, T]
  Mat m(B, T);                                                                         // [B, T] 0/1
  for (Index t = 0; t < T; ++t)
    for (Index b = 0; b < B; ++b) m(b, t) = text.mask(t * B + b, 0);
  Var alpha = masked_softmax_rows(e, m);                                               // [B, T]
  if (pool_weights) *pool_weights = alpha.val();
  return weighted_sum_steps(alpha, states);                                            // [B, F]
}

Var ClassifyModel::features(Graph& g, const SeqBatch& text, Rng& rng, Mat* pool_weights) const {
  TW_CHECK(text.size() > 0 && text.mask.rows() == text.steps() * text.size() && text.mask.cols() == 1,
           "ClassifyModel: a batch needs ids [T x B] and a mask [T*B x 1], got ids [", text.steps(), "x",
           text.size(), "] and mask ", shape_str(text.mask));
  const Index B = text.size();
  Var x = drop(emb_.apply(g, text.ids), cfg_.dropout_embed, rng);                      // [T*B, E]
  Var states;
  if (fwd_) {
    SeqOut f = run_rnn(*fwd_, x, text.mask, B, Dir::kForward);                         // [T*B, H]
    SeqOut b;
    if (bwd_) b = run_rnn(*bwd_, x, text.mask, B, Dir::kBackward);
    if (cfg_.pooling == Pooling::kLast) return bwd_ ? concat_cols({f.last.h, b.last.h}) : f.last.h;   // [B, F]
    states = bwd_ ? concat_cols({f.h_all, b.h_all}) : f.h_all;                       // [T*B, F]
  } else {
    states = sa_->apply(x, text.mask, B, rng);                                         // [T*B, E]
  }
  return pool(states, text, pool_weights);
}

Var ClassifyModel::logits(Graph& g, const SeqBatch& text, Rng& rng, Mat* pool_weights) const {
  return out_.apply(drop(features(g, text, rng, pool_weights), cfg_.dropout, rng));   // [B, C]
}

Var ClassifyModel::loss(Graph& g, const SeqBatch& text, const Ids& labels, Rng& rng) const {
  TW_CHECK(static_cast<Index>(labels.size()) == text.size(), "ClassifyModel::loss: ", labels.size(),
           " labels for ", text.size(), " sentences");
  for (auto y : labels)
    TW_CHECK(y >= 0 && y < num_labels_, "ClassifyModel::loss: label ", y, " outside [0, ", num_labels_, ")");
  return cross_entropy(logits(g, text, rng), labels, Mat());
}

}  // namespace twin::classify
