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
  keys.V_heads = reshape(enc, keys.S * batch * heads_, enc.cols() / heads_);   // [S*B*n, d], once per batch
  return keys;
}

AttnOut MultiHeadAdditiveAttention::step(const AttnKeys& keys, Var query) const {
  TW_CHECK(w_q_ != nullptr, "MultiHeadAdditiveAttention: used before construction");
  const Index S = keys.S, B = keys.B, A = w_q_->value.cols(), d = keys.V.cols() / heads_;
  TW_CHECK(keys.K.valid() && keys.V.valid() && keys.K.rows() == S * B && keys.K.cols() == A &&
               keys.V.rows() == S * B && keys.V.cols() == out_.in_dim(),
           "MultiHeadAdditiveAttention::step: keys K ", shape_str(keys.K), " V ", shape_str(keys.V), " for S=", S,
           " B=", B, " A=", A);
  TW_CHECK(query.rows() == B && query.cols() == w_q_->value.rows(), "MultiHeadAdditiveAttention '", w_q_->name,
           "': query ", shape_str(query), " must be [B x Q] = [", B, "x", w_q_->value.rows(), "]");
  Graph& g = *query.g;
  const Index n = heads_;
  Var q = matmul(query, g.param(*w_q_));                                     // [B, A]
  Var e = additive_scores_heads(keys.K, q, g.param(*v_), n);                 // [B*n, S], row b*n+h
  Var alpha;                                                                 // [B*n, S]
  if (keys.mask.size()) {
    Mat mask(B * n, S);                                                      // row b*n+h: sequence b's
    for (Index b = 0; b < B; ++b) mask.middleRows(b * n, n).rowwise() = keys.mask.row(b);
    alpha = masked_softmax_rows(e, mask);
  } else {
    alpha = softmax_rows(e);
  }
  // Row (s*B+b)*n + h of the reshaped memory is head h's block of row s*B+b: the rows of alpha's step s.
  Var v_heads = keys.V_heads.valid() ? keys.V_heads : reshape(keys.V, S * B * n, d);   // [S*B*n, d]
  Var z = reshape(weighted_sum_steps(alpha, v_heads), B, n * d);            // [B*n, d] -> [B, D]: [z_1 … z_n]
  Var ctx = out_.apply(z);                                                   // [B, O]
  if (n == 1) return {ctx, alpha};
  Mat mean = Mat::Zero(n * S, S);                                            // the heads' mean of α
  for (Index h = 0; h < n; ++h) mean.middleRows(h * S, S).diagonal().setConstant(Real(1) / static_cast<Real>(n));
  return {ctx, matmul(reshape(alpha, B, n * S), g.constant(std::move(mean)))};   // [B, n*S] x [n*S, S]
}

}  // namespace twin
