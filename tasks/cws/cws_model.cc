#include "cws_model.h"

#include "bmes.h"
#include "graph/init.h"
#include "ops/ops.h"
#include "rnn/cell_factory.h"
#include "rnn/rnn.h"
#include "train/config.h"

namespace twin::cws {

const ConfigTable<CwsModelConfig>& cws_model_table() {
  return table_once<CwsModelConfig>([]<class C>(ConfigTable<C>& t) {
    t.integer("embed", &C::embed, 1, 1 << 16, "character embedding size")
        .integer("bigram_embed", &C::bigram_embed, 0, 1 << 16, "bigram embedding size with data.bigrams (0 = embed)")
        .section("cell", &C::cell, &cell_table(), "the recurrent cell of each direction (model.cell.*)")
        .number("init_scale", &C::init_scale, 0.0, 10.0, "uniform(-a, a) for embeddings and the emission layer")
        .number("dropout_embed", &C::dropout_embed, 0.0, 0.99, "dropout on the embeddings")
        .number("dropout_crf", &C::dropout_crf, 0.0, 0.99, "dropout on the BiRNN output, before the emission layer")
        .choice("objective", &C::objective, kCrfObjectiveNames,
                "max-margin hinge (the paper) or CRF negative log-likelihood")
        .number("eta", &C::eta, 0.0, 100.0, "the hinge's Hamming cost per wrong tag")
        .flag("start_end", &C::start_end, "learned start/end transitions (the authors' code has none)")
        .flag("constrain", &C::constrain, "decode (and cost-augment) only BMES-legal tag sequences");
  });
}

CwsModelConfig parse_cws_model(JsonReader& r) { return cws_model_table().parse(r); }
nlohmann::json to_json(const CwsModelConfig& c) { return cws_model_table().to_json(c); }

CwsModel::CwsModel(const CwsModelConfig& cfg, Index char_vocab, Index bigram_vocab, ParamStore& store) : cfg_(cfg) {
  const Init init = init::uniform(static_cast<Real>(cfg.init_scale));
  chars_ = Embedding(store, "cws/char_emb", char_vocab, cfg.embed, init);
  int in = cfg.embed;
  if (bigram_vocab > 0) {
    const int d = cfg.bigram_embed ? cfg.bigram_embed : cfg.embed;
    bigrams_ = Embedding(store, "cws/bigram_emb", bigram_vocab, d, init);
    in += d;
  }
  fwd_ = make_cell(cfg.cell, in, store, "cws/fwd");
  bwd_ = make_cell(cfg.cell, in, store, "cws/bwd");
  out_ = Linear(store, "cws/emit", fwd_->hidden_dim() + bwd_->hidden_dim(), kNumTags, init);
  trans_ = &store.add("cws/crf/trans", kNumTags, kNumTags, init::constant(0));
  if (cfg.start_end) {
    start_ = &store.add("cws/crf/start", 1, kNumTags, init::constant(0));
    end_ = &store.add("cws/crf/end", 1, kNumTags, init::constant(0));
  }
  constraint_ = bmes_constraint();
}

Var CwsModel::drop(Var x, double p, Rng& rng) const { return p > 0 ? dropout(x, static_cast<Real>(p), rng) : x; }

Var CwsModel::emissions(Graph& g, const CwsBatch& b, Rng& rng) const {
  const Index B = b.chars.size();
  Var x = chars_.apply(g, b.chars.ids);                                        // [T*B, E]
  if (!b.bigram_flat.empty()) x = concat_cols({x, bigrams_.apply(g, b.bigram_flat)});
  x = drop(x, cfg_.dropout_embed, rng);
  const Mat& mask = b.chars.mask;
  Var h = concat_cols({run_rnn(*fwd_, x, mask, B, Dir::kForward).h_all,
                       run_rnn(*bwd_, x, mask, B, Dir::kBackward).h_all});    // [T*B, 2H]
  return out_.apply(drop(h, cfg_.dropout_crf, rng));                          // [T*B, 4]
}

CwsModel::CrfParams CwsModel::crf_params(Graph& g) const {
  return {g.param(*trans_), start_ ? g.param(*start_) : Var{}, end_ ? g.param(*end_) : Var{}};
}

Var CwsModel::loss(Graph& g, const CwsBatch& b, Rng& rng) const {
  Var o = emissions(g, b, rng);
  const CrfParams p = crf_params(g);
  std::vector<Index> lengths(b.chars.lengths.begin(), b.chars.lengths.end());
  if (cfg_.objective == CrfObjective::kNll) return crf_nll(o, lengths, p.trans, p.start, p.end, b.gold);
  return crf_hinge_loss(o, lengths, p.trans, p.start, p.end, b.gold, static_cast<Real>(cfg_.eta),
                        cfg_.constrain ? &constraint_ : nullptr);
}

std::vector<std::vector<int>> CwsModel::decode(const CwsBatch& b) const {
  Graph g(Mode::kInfer);
  Rng unused(0);
  Var o = emissions(g, b, unused);
  std::vector<Index> lengths(b.chars.lengths.begin(), b.chars.lengths.end());
  return crf_decode(o.val(), lengths, trans_->value, start_ ? &start_->value : nullptr, end_ ? &end_->value : nullptr,
                    cfg_.constrain ? &constraint_ : nullptr);
}

}  // namespace twin::cws
