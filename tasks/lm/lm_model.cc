#include "lm_model.h"

#include "graph/init.h"
#include "ops/ops.h"
#include "rnn/cell_factory.h"
#include "rnn/stacked.h"
#include "train/config.h"
#include "base/json_reader.h"

namespace twin::lm {

const ConfigTable<LmModelConfig>& lm_model_table() {
  return table_once<LmModelConfig>([]<class C>(ConfigTable<C>& t) {
    t.integer("embed", &C::embed, 1, 1 << 16, "word embedding size")
        .integer("layers", &C::layers, 1, 64, "stacked recurrent layers")
        .section("cell", &C::cell, &cell_table(), "the recurrent cell (model.cell.*)")
        .number("dropout", &C::dropout, 0.0, 0.99, "on the embeddings, between layers and before the softmax")
        .choice("dropout_kind", &C::dropout_kind, kLmDropoutNames,
                "a fresh mask per entry, or one mask per window (Gal and Ghahramani)")
        .flag("tie", &C::tie, "the output layer shares the embedding matrix (needs cell.hidden == embed)")
        .number("init_scale", &C::init_scale, 0.0, 10.0, "uniform(-a, a) for the embedding and softmax");
    t.rule([](const C& c) -> std::pair<std::string, std::string> {
      if (!c.tie || c.cell.hidden == c.embed) return {"", ""};
      return {"tie", "needs model.cell.hidden (" + std::to_string(c.cell.hidden) + ") == model.embed (" +
                         std::to_string(c.embed) + ")"};
    });
  });
}

LmModelConfig parse_lm_model(JsonReader& r) { return lm_model_table().parse(r); }
nlohmann::json to_json(const LmModelConfig& c) { return lm_model_table().to_json(c); }

LmModel::LmModel(const LmModelConfig& cfg, Index vocab, ParamStore& store) : cfg_(cfg) {
  const Init init = init::uniform(static_cast<Real>(cfg.init_scale));
  emb_ = Embedding(store, "lm/emb", vocab, cfg.embed, init);
  int in = cfg.embed;
  for (int l = 0; l < cfg.layers; ++l) {
    // Layer l's own cell config (rnn/stacked.h: HGRN's forget-gate bound rises with depth).
    cells_.push_back(make_cell(layer_cell_config(cfg.cell, l, cfg.layers), in, store, "lm/l" + std::to_string(l)));
    in = cells_.back()->hidden_dim();
  }
  if (cfg.tie) {
    out_bias_ = &store.add("lm/out/b", 1, vocab, init::constant(0));
  } else {
    out_ = Linear(store, "lm/out", in, vocab, init);
  }
}

Var LmModel::drop(Var x, Index batch, Rng& rng) const {
  if (cfg_.dropout == 0 || !x.g->training()) return x;
  if (cfg_.dropout_kind == LmDropout::kVariational) {
    // One mask per sequence (column of the batch) for the whole window (Gal & Ghahramani 2016).
    Mat m = dropout_mask(rng, batch, x.cols(), static_cast<Real>(cfg_.dropout));
    return mul_tile_rows(x, x.g->constant(std::move(m)));
  }
  return dropout(x, static_cast<Real>(cfg_.dropout), rng);
}

Var LmModel::forward(Graph& g, const IdMat& input, LmState& state, Rng& rng,
                     std::map<std::string, std::vector<Mat>>* gates) const {
  const Index B = input.cols();
  const Mat no_mask;   // LM windows are never padded
  Var x = drop(emb_.apply(g, input), B, rng);                          // [T*B, E]
  LmState next;
  for (size_t l = 0; l < cells_.size(); ++l) {
    const Cell& cell = *cells_[l];
    CellState init;
    if (!state.empty()) {
      init.h = g.constant(state.h[l]);                                  // detached: no gradient into the past
      if (cell.has_memory()) init.c = g.constant(state.c[l]);
    }
    const bool top = l + 1 == cells_.size();
    SeqOut o = run_rnn(cell, x, no_mask, B, Dir::kForward, init, gates != nullptr && top);
    next.h.push_back(o.last.h.val());
    next.c.push_back(cell.has_memory() ? o.last.c.val() : Mat());
    if (gates && top) *gates = std::move(o.gates);
    x = drop(o.h_all, B, rng);                                          // [T*B, H]
  }
  state = std::move(next);
  return x;
}

Var LmModel::loss(Graph& g, const IdMat& input, const IdMat& target, LmState& state, Rng& rng,
                  std::map<std::string, std::vector<Mat>>* gates) const {
  const Index B = input.cols();
  Var x = forward(g, input, state, rng, gates);                          // [T*B, H]
  Ids tgt(static_cast<size_t>(target.size()));
  for (Index t = 0; t < target.rows(); ++t)
    for (Index b = 0; b < B; ++b) tgt[static_cast<size_t>(t * B + b)] = target(t, b);
  // Softmax layer and loss in one node (ops/output_loss.h): logits [T*B, V] = x Wᵀ + b (tied, W the
  // embedding table [V, E]) or x W + b.
  if (cfg_.tie) return linear_cross_entropy(x, g.param(emb_.table()), true, g.param(*out_bias_), tgt, Mat());
  Param* b = out_.bias();
  return linear_cross_entropy(x, g.param(out_.weight()), false, b ? g.param(*b) : Var{}, tgt, Mat());
}

Mat LmModel::token_nll(Graph& g, const IdMat& input, const IdMat& target, LmState& state) const {
  Rng unused(0);
  const Index T = input.rows(), B = input.cols();
  const Mat& x = forward(g, input, state, unused).val();                 // [T*B, H]
  const Index V = cfg_.tie ? emb_.table().value.rows() : out_.weight().value.cols();
  Mat logits(x.rows(), V);                                                // [T*B, V], as loss() computes it
  if (cfg_.tie) {
    gemm(x, false, emb_.table().value, true, logits);
    logits.rowwise() += out_bias_->value.row(0);
  } else {
    gemm(x, false, out_.weight().value, false, logits);
    if (Param* b = out_.bias()) logits.rowwise() += b->value.row(0);
  }
  const Mat lp = log_softmax_rows(logits);
  Mat nll(T, B);
  for (Index t = 0; t < T; ++t)
    for (Index b = 0; b < B; ++b) nll(t, b) = -lp(t * B + b, target(t, b));
  return nll;
}

}  // namespace twin::lm
