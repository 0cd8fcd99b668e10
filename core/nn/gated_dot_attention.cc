#include "nn/gated_dot_attention.h"

#include <cmath>

#include "nn/seq_dropout.h"
#include "ops/ops.h"

namespace twin {

Ids sequence_rows(Index b, Index steps, Index batch) {
  Ids rows(static_cast<size_t>(steps));
  for (Index t = 0; t < steps; ++t) rows[static_cast<size_t>(t)] = static_cast<std::int32_t>(t * batch + b);
  return rows;
}

GatedDotAttention::GatedDotAttention(ParamStore& store, const std::string& scope, Index x_dim, Index mem_dim,
                                     Index attn_dim, const Init& init) {
  TW_CHECK(x_dim > 0 && mem_dim > 0 && attn_dim > 0, "GatedDotAttention '", scope,
           "': dimensions must be positive, got x_dim=", x_dim, " mem_dim=", mem_dim, " attn_dim=", attn_dim);
  w_x_ = &store.add(join_name(scope, "W_x"), x_dim, attn_dim, init);
  w_m_ = &store.add(join_name(scope, "W_m"), mem_dim, attn_dim, init);
  w_g_ = &store.add(join_name(scope, "W_g"), x_dim + mem_dim, x_dim + mem_dim, init);
}

Var GatedDotAttention::apply(Var x, Var m, const Mat& mem_mask, Index batch, Real p, Rng& rng,
                             std::vector<Mat>* alpha_out) const {
  TW_CHECK(w_x_ != nullptr, "GatedDotAttention: used before construction");
  const Index B = batch;
  TW_CHECK(B > 0 && x.rows() > 0 && x.rows() % B == 0 && m.rows() > 0 && m.rows() % B == 0,
           "GatedDotAttention: inputs ", shape_str(x), " and memory ", shape_str(m), " are not time-major for B=", B);
  TW_CHECK(x.cols() == x_dim() && m.cols() == mem_dim(), "GatedDotAttention '", w_x_->name, "': inputs ",
           shape_str(x), " and memory ", shape_str(m), " need ", x_dim(), " and ", mem_dim(), " columns");
  TW_CHECK(mem_mask.size() == 0 || (mem_mask.rows() == m.rows() && mem_mask.cols() == 1),
           "GatedDotAttention: memory mask ", shape_str(mem_mask), " must be [Tm*B x 1]");
  Graph& g = *x.g;
  const Index Tx = x.rows() / B, Tm = m.rows() / B;
  const Real s = Real(1) / std::sqrt(static_cast<Real>(attn_dim()));
  Var xa = relu(matmul(seq_dropout(x, B, p, rng), g.param(*w_x_)));   // relu(x' W_x) [Tx*B, A]
  Var ma = relu(matmul(seq_dropout(m, B, p, rng), g.param(*w_m_)));   // relu(m' W_m) [Tm*B, A]
  if (alpha_out) alpha_out->clear();
  std::vector<Var> ctx;
  ctx.reserve(static_cast<size_t>(B));
  for (Index b = 0; b < B; ++b) {
    const Ids rx = sequence_rows(b, Tx, B), rm = sequence_rows(b, Tm, B);
    Var e = scale(matmul_nt(select_rows(xa, rx), select_rows(ma, rm)), s);   // s_ij [Tx, Tm]
    Mat keep = Mat::Ones(Tx, Tm);
    if (mem_mask.size())
      for (Index j = 0; j < Tm; ++j) keep.col(j).setConstant(mem_mask(j * B + b, 0));
    Var a = masked_softmax_rows(e, keep);                                      // α [Tx, Tm]
    if (alpha_out) alpha_out->push_back(a.val());
    ctx.push_back(matmul(a, select_rows(m, rm)));                              // c [Tx, Dm]
  }
  Ids time_major(static_cast<size_t>(Tx * B));                                 // row t*B + b <- b*Tx + t
  for (Index t = 0; t < Tx; ++t)
    for (Index b = 0; b < B; ++b) time_major[static_cast<size_t>(t * B + b)] = static_cast<std::int32_t>(b * Tx + t);
  Var r = concat_cols({x, select_rows(stack_rows(ctx), time_major)});          // r = [x ; c] [Tx*B, Dx+Dm]
  Var gate = sigmoid(matmul(seq_dropout(r, B, p, rng), g.param(*w_g_)));       // g [Tx*B, Dx+Dm]
  return r * gate;
}

}  // namespace twin
