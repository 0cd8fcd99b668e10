#include "nn/attention.h"

#include "graph/init.h"
#include "ops/ops.h"

namespace twin {

Attention::Attention(ParamStore& store, const std::string& scope, Index key_dim, Index query_dim, Index attn_dim,
                     const Init& init, bool key_bias) {
  TW_CHECK(key_dim > 0 && query_dim > 0 && attn_dim > 0, "Attention '", scope,
           "': dimensions must be positive, got key_dim=", key_dim, " query_dim=", query_dim, " attn_dim=", attn_dim);
  w_k_ = &store.add(join_name(scope, "W_k"), key_dim, attn_dim, init);
  if (key_bias) b_k_ = &store.add(join_name(scope, "b_k"), 1, attn_dim, init::constant(0));
  w_q_ = &store.add(join_name(scope, "W_q"), query_dim, attn_dim, init);
  v_ = &store.add(join_name(scope, "v"), attn_dim, 1, init);
}

AttnKeys Attention::precompute(Var enc, const Mat& src_mask, Index batch) const {
  TW_CHECK(w_k_ != nullptr, "Attention: used before construction");
  TW_CHECK(batch > 0 && enc.rows() % batch == 0 && enc.rows() > 0, "Attention::precompute: encoder states ",
           shape_str(enc), " are not [S*B, D] time-major for batch B=", batch);
  TW_CHECK(enc.cols() == key_dim(), "Attention '", w_k_->name, "': encoder states ", shape_str(enc), " need D=",
           key_dim(), " columns");
  Graph& g = *enc.g;
  AttnKeys keys;
  keys.B = batch;
  keys.S = enc.rows() / batch;
  keys.V = enc;
  // The key projection is one GEMM for all positions, done once per batch, never per query.
  keys.K = b_k_ ? affine(enc, g.param(*w_k_), g.param(*b_k_)) : matmul(enc, g.param(*w_k_));   // [S*B, A]
  keys.mask = attention_key_mask(src_mask, keys.S, keys.B);
  return keys;
}

Mat attention_key_mask(const Mat& src_mask, Index S, Index B) {
  Mat mask;
  if (src_mask.size() == 0) return mask;
  TW_CHECK(src_mask.rows() == S * B && src_mask.cols() == 1, "Attention::precompute: source mask ",
           shape_str(src_mask), " must be [S*B x 1] = [", S * B, "x1]");
  mask.resize(B, S);                                                                   // [B, S]
  for (Index s = 0; s < S; ++s)
    for (Index b = 0; b < B; ++b) {
      const Real m = src_mask(s * B + b, 0);
      TW_CHECK(m == 0 || m == 1, "Attention::precompute: source mask entries must be 0 or 1, got ", m,
               " at row ", s * B + b);
      mask(b, s) = m;
    }
  return mask;
}

AttnOut Attention::step(const AttnKeys& keys, Var query) const {
  TW_CHECK(w_q_ != nullptr, "Attention: used before construction");
  const Index S = keys.S, B = keys.B;
  TW_CHECK(keys.K.valid() && keys.V.valid() && S > 0 && B > 0, "Attention::step: keys were not precomputed");
  TW_CHECK(keys.K.rows() == S * B && keys.K.cols() == attn_dim() && keys.V.rows() == S * B,
           "Attention::step: keys K ", shape_str(keys.K), " V ", shape_str(keys.V), " for S=", S, " B=", B,
           " A=", attn_dim());
  TW_CHECK(query.rows() == B && query.cols() == query_dim(), "Attention '", w_q_->name, "': query ",
           shape_str(query), " must be [B x Q] = [", B, "x", query_dim(), "]");
  TW_CHECK(keys.mask.size() == 0 || (keys.mask.rows() == B && keys.mask.cols() == S),
           "Attention::step: mask ", shape_str(keys.mask), " must be [B x S] = [", B, "x", S, "]");
  Graph& g = *query.g;
  Var qp = matmul(query, g.param(*w_q_));                       // [B, A]
  Var hid = tanh(add_tile_rows(keys.K, qp));                    // [S*B, A]
  Var e_col = matmul(hid, g.param(*v_));                        // [S*B, 1], row s*B+b
  Var e = transpose(reshape(e_col, S, B));                      // [B, S]
  Var alpha = keys.mask.size() ? masked_softmax_rows(e, keys.mask) : softmax_rows(e);   // [B, S]
  Var ctx = weighted_sum_steps(alpha, keys.V);                  // [B, D]
  return {ctx, alpha};
}

}  // namespace twin
