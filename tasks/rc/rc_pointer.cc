#include "rc_pointer.h"

#include "nn/attention_pooling.h"
#include "nn/seq_dropout.h"
#include "ops/ops.h"
#include "rnn/cell_factory.h"

namespace twin::rc {

namespace {

inline constexpr Real kMaskedLogit = Real(-1e30);   // func.py's softmax_mask: −INF·(1 − mask) + logits, INF = 1e30

}  // namespace

PointerNet::PointerNet(ParamStore& store, const std::string& scope, const CellConfig& cell, Index dim,
                       Index attn_dim, const Init& init)
    : w_p_(store, join_name(scope, "W_P"), dim, attn_dim, init, /*bias=*/false),
      w_s_(store, join_name(scope, "W_s"), dim, attn_dim, init, /*bias=*/false),
      v_(store, join_name(scope, "v"), attn_dim, 1, init, /*bias=*/false) {
  TW_CHECK(cell.hidden == dim, "PointerNet '", scope, "': the cell's hidden size ", cell.hidden,
           " must equal the passage width ", dim);
  cell_ = make_cell(cell, static_cast<int>(dim), store, join_name(scope, "cell"));
}

PointerNet::PointerNet(PointerNet&&) noexcept = default;
PointerNet& PointerNet::operator=(PointerNet&&) noexcept = default;
PointerNet::~PointerNet() = default;

PointerLogits PointerNet::apply(Var init, Var passage, const Mat& mask, Index batch, Real p, Rng& rng) const {
  TW_CHECK(cell_ != nullptr, "PointerNet: used before construction");
  const Index B = batch;
  TW_CHECK(init.rows() == B && init.cols() == w_s_.in_dim() && passage.cols() == w_p_.in_dim() &&
               passage.rows() % B == 0 && mask.rows() == passage.rows() && mask.cols() == 1,
           "PointerNet: state ", shape_str(init), ", passage ", shape_str(passage), ", mask ", shape_str(mask),
           " for B=", B, " D=", w_p_.in_dim());
  Graph& g = *init.g;
  const Mat keep = mask_by_sequence(mask, B);                                   // [B, Tp]
  Var offset = g.constant((Real(1) - keep.array()).matrix() * kMaskedLogit);         // −1e30 at padding
  Var pd = seq_dropout(passage, B, p, rng);                                     // P' [Tp*B, D]
  Var keys = w_p_.apply(pd);                                                    // P' W_P [Tp*B, A], once
  const bool drop = p > 0 && g.training();
  Var state_mask = drop ? g.constant(dropout_mask(rng, B, init.cols(), p)) : Var{};   // m_s [B, D]
  auto pointer = [&](Var s, Var* ctx) {
    if (state_mask.valid()) s = s * state_mask;
    Var e = scores_by_sequence(v_.apply(tanh(add_tile_rows(keys, w_s_.apply(s)))), B);   // [B, Tp]
    Var logits = e + offset;
    if (ctx) *ctx = weighted_sum_steps(masked_softmax_rows(e, keep), pd);                // c [B, D]
    return logits;
  };
  Var c1;
  Var logits1 = pointer(init, &c1);
  CellState s0;
  s0.h = init;
  if (cell_->has_memory()) s0.c = cell_->zero_state(g, B).c;
  Var c1d = drop ? dropout(c1, p, rng) : c1;
  const CellState s1 = cell_->step(cell_->project_inputs(c1d), s0);             // s_1 [B, D]
  Var logits2 = pointer(s1.h, nullptr);
  return {logits1, logits2};
}

}  // namespace twin::rc
