#include "nn/multihead_attention.h"

#include "graph/init.h"
#include "ops/ops.h"

namespace twin {

MultiHeadAdditiveAttention::MultiHeadAdditiveAttention(ParamStore& store, const std::string& scope, Index key_dim,
                                                       Index query_dim, Index attn_dim, Index out_dim, Index heads,
                                                       const Init& init)
    : heads_(heads) {
  TW_CHECK(key_dim > 0 && query_dim > 0 && attn_dim > 0 && out_dim > 0 && heads > 0, "MultiHeadAdditiveAttention '",
           scope, "': dimensions must be positive, got key_dim=", key_dim, " query_dim=", query_dim,
           " attn_dim=", attn_dim, " out_dim=", out_dim, " heads=", heads);
  TW_CHECK(attn_dim % heads == 0 && key_dim % heads == 0, "MultiHeadAdditiveAttention '", scope, "': ", heads,
           " heads must divide the attention size ", attn_dim, " and the memory width ", key_dim);
  w_k_ = &store.add(join_name(scope, "W_k"), key_dim, attn_dim, init);
  w_q_ = &store.add(join_name(scope, "W_q"), query_dim, attn_dim, init);
  v_ = &store.add(join_name(scope, "v"), attn_dim / heads, 1, init);
  out_ = Linear(store, join_name(scope, "out"), key_dim, out_dim, init);
}

AttnKeys MultiHeadAdditiveAttention::precompute(Var enc, const Mat& src_mask, Index batch) const {
  TW_CHECK(w_k_ != nullptr, "MultiHeadAdditiveAttention: used before construction");
  TW_CHECK(batch > 0 && enc.rows() > 0 && enc.rows() % batch == 0 && enc.cols() == w_k_->value.rows(),
           "MultiHeadAdditiveAttention '", w_k_->name, "': memory ", shape_str(enc), " is not [S*B, ",
           w_k_->value.rows(), "] for batch B=", batch);
  AttnKeys keys;
  keys.B = batch;
  keys.S = enc.rows() / batch;
  keys.V = enc;
  keys.K = matmul(enc, enc.g->param(*w_k_));                                // [S*B, A], once per batch
  keys.mask = attention_key_mask(src_mask, keys.S, keys.B);
  return keys;
}

AttnOut MultiHeadAdditiveAttention::step(const AttnKeys& keys, Var query) const {
  TW_CHECK(w_q_ != nullptr, "MultiHeadAdditiveAttention: used before construction");
  const Index S = keys.S, B = keys.B, A = w_q_->value.cols(), a = A / heads_, d = keys.V.cols() / heads_;
  TW_CHECK(keys.K.valid() && keys.V.valid() && keys.K.rows() == S * B && keys.K.cols() == A &&
               keys.V.rows() == S * B && keys.V.cols() == out_.in_dim(),
           "MultiHeadAdditiveAttention::step: keys K ", shape_str(keys.K), " V ", shape_str(keys.V), " for S=", S,
           " B=", B, " A=", A);
  TW_CHECK(query.rows() == B && query.cols() == w_q_->value.rows(), "MultiHeadAdditiveAttention '", w_q_->name,
           "': query ", shape_str(query), " must be [B x Q] = [", B, "x", w_q_->value.rows(), "]");
  Graph& g = *query.g;
  Var q = matmul(query, g.param(*w_q_));                                     // [B, A]
  Var v = g.param(*v_);                                                      // [a, 1]
  std::vector<Var> z;
  Var alpha_sum;
  for (Index h = 0; h < heads_; ++h) {
    Var hid = tanh(add_tile_rows(slice_cols(keys.K, h * a, a), slice_cols(q, h * a, a)));   // [S*B, a]
    Var e = transpose(reshape(matmul(hid, v), S, B));                        // [B, S]
    Var alpha = keys.mask.size() ? masked_softmax_rows(e, keys.mask) : softmax_rows(e);   // [B, S]
    z.push_back(weighted_sum_steps(alpha, slice_cols(keys.V, h * d, d)));   // [B, d]
    alpha_sum = h == 0 ? alpha : alpha_sum + alpha;
  }
  Var ctx = out_.apply(heads_ == 1 ? z[0] : concat_cols(z));                 // [B, O]
  return {ctx, heads_ == 1 ? alpha_sum : scale(alpha_sum, Real(1) / static_cast<Real>(heads_))};
}

}  // namespace twin
