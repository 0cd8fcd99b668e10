#include "nn/attention_pooling.h"

#include "nn/seq_dropout.h"
#include "ops/ops.h"

namespace twin {

Var scores_by_sequence(Var col, Index batch) {
  TW_CHECK(batch > 0 && col.cols() == 1 && col.rows() % batch == 0, "scores_by_sequence: ", shape_str(col),
           " is not [T*B x 1] for B=", batch);
  return transpose(reshape(col, col.rows() / batch, batch));   // [T, B] (row t) -> [B, T]
}

Mat mask_by_sequence(const Mat& mask, Index batch) {
  TW_CHECK(batch > 0 && mask.cols() == 1 && mask.rows() % batch == 0, "mask_by_sequence: ", shape_str(mask),
           " is not [T*B x 1] for B=", batch);
  const Index T = mask.rows() / batch;
  Mat m(batch, T);
  for (Index t = 0; t < T; ++t)
    for (Index b = 0; b < batch; ++b) m(b, t) = mask(t * batch + b, 0);
  return m;
}

AttentionPooling::AttentionPooling(ParamStore& store, const std::string& scope, Index dim, Index attn_dim,
                                   const Init& init)
    : w_(store, scope, dim, attn_dim, init), v_(store, join_name(scope, "v"), attn_dim, 1, init, /*bias=*/false) {}

Var AttentionPooling::apply(Var memory, const Mat& mask, Index batch, Real p, Rng& rng) const {
  TW_CHECK(memory.cols() == w_.in_dim(), "AttentionPooling: memory ", shape_str(memory), " needs ", w_.in_dim(),
           " columns");
  Var s = scores_by_sequence(v_.apply(tanh(w_.apply(seq_dropout(memory, batch, p, rng)))), batch);   // [B, T]
  Var alpha = mask.size() ? masked_softmax_rows(s, mask_by_sequence(mask, batch)) : softmax_rows(s);
  return weighted_sum_steps(alpha, memory);                                                          // [B, D]
}

}  // namespace twin
