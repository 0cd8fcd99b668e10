#include "nn/self_attention.h"

#include <cmath>

#include "ops/ops.h"

namespace twin {

const ConfigTable<SelfAttentionConfig>& self_attention_table() {
  return table_once<SelfAttentionConfig>([]<class C>(ConfigTable<C>& t) {
    t.count("heads", &C::heads, 1, 1 << 10, "attention heads h (must divide the width)")
        .count("ff_dim", &C::ff_dim, 0, 1 << 20, "feed-forward size F; 0 = 4 x width")
        .integer("layers", &C::layers, 1, 64, "stacked blocks")
        .choice("position", &C::position, kPositionEncodingNames, "position information")
        .count("max_len", &C::max_len, 1, 1 << 20, "learned positions: table rows (longer inputs are an error)")
        .count("clip_k", &C::clip_k, 0, 1 << 20, "relative positions: the clipping distance k")
        .number("dropout", &C::dropout, 0.0, 0.99, "on the attention and feed-forward outputs (training only)");
  });
}

// Parameters of one layer, under scope/l<n>/ (relative tables only for relative positions).
struct SelfAttentionEncoder::Layer {
  Param *wq, *wk, *wv, *wo;              // W^Q, W^K, W^V, W^O                    [D, D]
  Param *w1, *b1, *w2, *b2;              // feed-forward                          [D, F] [1, F] [F, D] [1, D]
  Param *ln1_gain, *ln1_bias;            // LayerNorm after attention             [1, D] (gain 1, bias 0)
  Param *ln2_gain, *ln2_bias;            // LayerNorm after the feed-forward      [1, D]
  Param* rel_k = nullptr;                // w^K                                   [2k+1, d_h]
  Param* rel_v = nullptr;                // w^V                                   [2k+1, d_h]
};

namespace {

Index ff_width(const SelfAttentionConfig& cfg) { return cfg.ff_dim > 0 ? cfg.ff_dim : 4 * cfg.dim; }

void check_config(const SelfAttentionConfig& cfg, const std::string& scope) {
  const std::string who = "SelfAttentionEncoder '" + scope + "': ";
  TW_CHECK(cfg.dim > 0 && cfg.heads > 0 && cfg.dim % cfg.heads == 0, who, "dim=", cfg.dim,
           " must be positive and divisible by heads=", cfg.heads);
  TW_CHECK(cfg.ff_dim >= 0, who, "ff_dim=", cfg.ff_dim, " must be >= 0 (0 = 4 dim)");
  TW_CHECK(cfg.layers >= 1, who, "layers=", cfg.layers, " must be >= 1");
  using P = PositionEncoding;
  TW_CHECK(cfg.position != P::kLearned || cfg.max_len > 0, who, "max_len=", cfg.max_len, " must be positive");
  TW_CHECK(cfg.position != P::kRelative || cfg.clip_k >= 0, who, "clip_k=", cfg.clip_k, " must be >= 0");
  TW_CHECK(cfg.dropout >= 0 && cfg.dropout < 1, who, "dropout=", cfg.dropout, " outside [0, 1)");
}

}  // namespace

Mat sinusoidal_positions(Index steps, Index dim) {
  Mat pe(steps, dim);                                                  // [T, D]
  for (Index t = 0; t < steps; ++t)
    for (Index c = 0; c < dim; ++c) {
      const double angle = static_cast<double>(t) / std::pow(10000.0, static_cast<double>(c - c % 2) / dim);
      pe(t, c) = static_cast<Real>(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  return pe;
}

SelfAttentionEncoder::SelfAttentionEncoder(const SelfAttentionConfig& cfg, ParamStore& store,
                                           const std::string& scope, const Init& init)
    : cfg_(cfg) {
  check_config(cfg, scope);
  cfg_.ff_dim = ff_width(cfg);
  const Index D = cfg_.dim, F = cfg_.ff_dim, dh = D / cfg_.heads;
  if (cfg_.position == PositionEncoding::kLearned)
    position_table_ = &store.add(join_name(scope, "position"), cfg_.max_len, D, init);
  for (int l = 0; l < cfg_.layers; ++l) {
    const std::string s = join_name(scope, "l" + std::to_string(l));
    auto add = [&](const char* name, Index rows, Index cols, const Init& in) {
      return &store.add(join_name(s, name), rows, cols, in);
    };
    auto layer = std::make_shared<Layer>();
    layer->wq = add("Wq", D, D, init);
    layer->wk = add("Wk", D, D, init);
    layer->wv = add("Wv", D, D, init);
    layer->wo = add("Wo", D, D, init);
    if (cfg_.position == PositionEncoding::kRelative) {
      layer->rel_k = add("rel_k", 2 * cfg_.clip_k + 1, dh, init);
      layer->rel_v = add("rel_v", 2 * cfg_.clip_k + 1, dh, init);
    }
    layer->ln1_gain = add("ln1/gain", 1, D, init::constant(1));
    layer->ln1_bias = add("ln1/bias", 1, D, init::constant(0));
    layer->w1 = add("W1", D, F, init);
    layer->b1 = add("b1", 1, F, init::constant(0));
    layer->w2 = add("W2", F, D, init);
    layer->b2 = add("b2", 1, D, init::constant(0));
    layer->ln2_gain = add("ln2/gain", 1, D, init::constant(1));
    layer->ln2_bias = add("ln2/bias", 1, D, init::constant(0));
    layers_.push_back(std::move(layer));
  }
}

Index SelfAttentionEncoder::expected_params(const SelfAttentionConfig& cfg) {
  const Index D = cfg.dim, F = ff_width(cfg);
  Index per_layer = 4 * D * D + D * F + F + F * D + D + 4 * D;        // projections, feed-forward, 2 LayerNorms
  if (cfg.position == PositionEncoding::kRelative) per_layer += 2 * (2 * cfg.clip_k + 1) * (D / cfg.heads);
  return cfg.layers * per_layer + (cfg.position == PositionEncoding::kLearned ? cfg.max_len * D : 0);
}

Var SelfAttentionEncoder::apply(Var x, const Mat& mask, Index batch, Rng& rng, std::vector<Mat>* attention) const {
  TW_CHECK(!layers_.empty(), "SelfAttentionEncoder: used before construction");
  const Index D = cfg_.dim;
  TW_CHECK(x.cols() == D, "SelfAttentionEncoder: input ", shape_str(x), " needs D=", D, " columns");
  TW_CHECK(batch > 0 && x.rows() > 0 && x.rows() % batch == 0, "SelfAttentionEncoder: input ", shape_str(x),
           " is not [T*B, D] time-major for batch B=", batch);
  TW_CHECK(mask.size() == 0 || (mask.rows() == x.rows() && mask.cols() == 1), "SelfAttentionEncoder: mask ",
           shape_str(mask), " must be [T*B x 1] = [", x.rows(), "x1]");
  Graph& g = *x.g;
  const Index T = x.rows() / batch;
  const auto p = static_cast<Real>(cfg_.dropout);
  if (attention) attention->clear();

  Var h = x;                                                           // [T*B, D]
  if (cfg_.position == PositionEncoding::kSinusoidal) {
    const Mat pe = sinusoidal_positions(T, D);                         // [T, D]
    Mat tiled(T * batch, D);                                           // [T*B, D], row t*B + b = PE(t)
    for (Index t = 0; t < T; ++t) tiled.middleRows(t * batch, batch).rowwise() = pe.row(t);
    h = x + g.constant(std::move(tiled));
  } else if (cfg_.position == PositionEncoding::kLearned) {
    TW_CHECK(T <= cfg_.max_len, "SelfAttentionEncoder: sequence length ", T, " exceeds the learned position table's max_len=",
             cfg_.max_len, " (raise max_len or cut the inputs)");
    Ids pos(static_cast<size_t>(T * batch));                           // row t*B + b -> position t
    for (Index r = 0; r < T * batch; ++r) pos[static_cast<size_t>(r)] = static_cast<std::int32_t>(r / batch);
    h = x + lookup(g.param(*position_table_), pos);                    // [T*B, D]
  }

  for (const auto& L : layers_) {
    Var q = matmul(h, g.param(*L->wq));                                // X W^Q  [T*B, D]
    Var k = matmul(h, g.param(*L->wk));                                // X W^K  [T*B, D]
    Var v = matmul(h, g.param(*L->wv));                                // X W^V  [T*B, D]
    Var rk = L->rel_k ? g.param(*L->rel_k) : Var{};                    // w^K    [2k+1, d_h]
    Var rv = L->rel_v ? g.param(*L->rel_v) : Var{};                    // w^V    [2k+1, d_h]
    Var z = scaled_dot_attention(q, k, v, mask, batch, cfg_.heads, rk, rv, cfg_.clip_k, attention);  // [T*B, D]
    Var a = matmul(z, g.param(*L->wo));                                // A = MultiHead(X) W^O  [T*B, D]
    Var x1 = layer_norm(h + dropout(a, p, rng), g.param(*L->ln1_gain), g.param(*L->ln1_bias));   // X' [T*B, D]
    Var f = relu(affine(x1, g.param(*L->w1), g.param(*L->b1)));        // ReLU(X' W_1 + b_1)  [T*B, F]
    Var y = affine(f, g.param(*L->w2), g.param(*L->b2));               // ... W_2 + b_2        [T*B, D]
    h = layer_norm(x1 + dropout(y, p, rng), g.param(*L->ln2_gain), g.param(*L->ln2_bias));      // Y  [T*B, D]
  }
  return h;
}

}  // namespace twin
