// Gradient checks (double precision) of the nn/ modules: Linear, Embedding (lookup and tied output), MLP
// (with dropout, mask fixed by a reseeded Rng), and additive attention (one head and DTMT's multi-head form)
// with a padded source.
#include <gtest/gtest.h>

#include "fused_compare.h"
#include "gradcheck.h"
#include "graph/init.h"
#include "nn/attention.h"
#include "nn/embedding.h"
#include "nn/linear.h"
#include "nn/mlp.h"
#include "nn/multihead_attention.h"
#include "ops/ops.h"
#include "test_util.h"

namespace twin::test {

TEST(NnGrad, LinearWithBias) {
  GradCheck gc;
  ParamStore store(3);
  Linear lin(store, "lin", 4, 3, init::uniform(0.5), true, init::uniform(0.5));
  auto x = gc.input(5, 4);
  gc.also_perturb(store);
  gc.check([&](Graph& g) { return lin.apply(x.in(g)); });
}

TEST(NnGrad, LinearWithoutBias) {
  GradCheck gc;
  ParamStore store(4);
  Linear lin(store, "lin", 3, 2, init::uniform(0.5), false);
  ASSERT_EQ(store.all().size(), 1u);
  auto x = gc.input(4, 3);
  gc.also_perturb(store);
  gc.check([&](Graph& g) { return tanh(lin.apply(x.in(g))); });
}

TEST(NnGrad, EmbeddingThroughTheTable) {
  GradCheck gc;
  ParamStore store(5);
  Embedding emb(store, "emb", 6, 3, init::normal(1));
  gc.also_perturb(store);
  const Ids ids = {2, 0, 5, 2, 2};   // repeats: gradients of one row must add up
  gc.check([&](Graph& g) { return tanh(emb.apply(g, ids)); });
}

TEST(NnGrad, EmbeddingTiedOutputSharesOneGradient) {
  GradCheck gc;
  ParamStore store(6);
  Embedding emb(store, "emb", 5, 3, init::normal(1));
  gc.also_perturb(store);
  IdMat ids(2, 2);
  ids << 1, 4, 4, 0;
  // E enters twice: the lookup (sparse rows) and the output product (dense).
  gc.check([&](Graph& g) { return emb.tied_logits(tanh(emb.apply(g, ids))); });
}

TEST(NnGrad, MlpTanh) {
  GradCheck gc;
  ParamStore store(7);
  Mlp mlp(store, "mlp", {.dims = {3, 4, 5, 2}, .activation = Activation::kTanh}, init::uniform(0.8));
  auto x = gc.input(4, 3);
  gc.also_perturb(store);
  gc.check([&](Graph& g) { return mlp.apply(x.in(g)); });
}

TEST(NnGrad, MlpReluWithDropoutAndActivatedOutput) {
  GradCheck gc;
  ParamStore store(8);
  MlpConfig cfg{.dims = {3, 6, 2}, .activation = Activation::kRelu, .dropout = 0.3, .activate_output = true};
  Mlp mlp(store, "mlp", cfg, init::uniform(0.8));
  auto x = gc.input(5, 3);
  gc.also_perturb(store);
  gc.check([&](Graph& g) {
    Rng rng(11);   // the same dropout mask in every evaluation of the finite differences
    return mlp.apply(x.in(g), rng);
  });
}

// Keys and values as free inputs: checks dK, dV, dq and every attention parameter of step(), including
// a query applied twice to the same keys (a decoder reuses them at every step).
TEST(NnGrad, AttentionStepKeysValuesQueryParams) {
  GradCheck gc;
  ParamStore store(9);
  const Index S = 4, B = 3, D = 2, Q = 3, A = 5;
  Attention att(store, "att", D, Q, A, init::uniform(0.7));
  auto k = gc.input(S * B, A);
  auto v = gc.input(S * B, D);
  auto q1 = gc.input(B, Q);
  auto q2 = gc.input(B, Q);
  gc.also_perturb(store);
  const Mat mask = time_major_mask(S, {4, 2, 3});
  // precompute on a dummy encoder only to convert the mask; K and V are then replaced by the inputs.
  gc.check([&](Graph& g) {
    AttnKeys keys = att.precompute(g.constant(Mat::Zero(S * B, D)), mask, B);
    keys.K = k.in(g);
    keys.V = v.in(g);
    AttnOut o1 = att.step(keys, q1.in(g));
    AttnOut o2 = att.step(keys, q2.in(g));
    return concat_cols({o1.ctx, o1.alpha, o2.ctx, o2.alpha});
  });
}

TEST(NnGrad, AttentionThroughPrecomputeWithKeyBias) {
  GradCheck gc;
  ParamStore store(10);
  const Index S = 3, B = 2, D = 3, Q = 2, A = 4;
  Attention att(store, "att", D, Q, A, init::uniform(0.7), /*key_bias=*/true);
  store.get("att/b_k").value.setConstant(0.3);   // a nonzero bias, so its gradient is not trivially at 0
  auto enc = gc.input(S * B, D);
  auto q = gc.input(B, Q);
  gc.also_perturb(store);
  const Mat mask = time_major_mask(S, {3, 1});
  gc.check([&](Graph& g) {
    AttnOut o = att.step(att.precompute(enc.in(g), mask, B), q.in(g));
    return concat_cols({o.ctx, o.alpha});
  });
}

TEST(NnGrad, AttentionUnmasked) {
  GradCheck gc;
  ParamStore store(12);
  Attention att(store, "att", 2, 2, 3, init::uniform(0.7));
  auto enc = gc.input(3 * 2, 2);
  auto q = gc.input(2, 2);
  gc.also_perturb(store);
  gc.check([&](Graph& g) { return att.step(att.precompute(enc.in(g), Mat(), 2), q.in(g)).ctx; });
}

// DTMT's multi-head additive attention through precompute: dK via the encoder, every head's slice of W_k,
// W_q and V, the shared v, the output transform, two queries over the same keys, padded sequences.
TEST(NnGrad, MultiHeadAdditiveAttentionThroughPrecompute) {
  GradCheck gc;
  ParamStore store(13);
  const Index S = 3, B = 2, D = 6, Q = 2, A = 9, O = 4, heads = 3;
  MultiHeadAdditiveAttention att(store, "mha", D, Q, A, O, heads, init::uniform(0.7));
  auto enc = gc.input(S * B, D);
  auto q1 = gc.input(B, Q);
  auto q2 = gc.input(B, Q);
  gc.also_perturb(store);
  const Mat mask = time_major_mask(S, {3, 2});
  gc.check([&](Graph& g) {
    AttnKeys keys = att.precompute(enc.in(g), mask, B);
    AttnOut o1 = att.step(keys, q1.in(g));
    AttnOut o2 = att.step(keys, q2.in(g));
    return concat_cols({o1.ctx, o1.alpha, o2.ctx, o2.alpha});
  });
}

// The step equals the per-head composition of its first version (slice every head out of K, q and V, score,
// softmax and sum it, concatenate), values and gradients of every parameter, the memory and both queries.
TEST(NnFused, MultiHeadAdditiveAttentionEqualsPerHeadComposition) {
  const Index S = 4, B = 3, D = 8, Q = 5, A = 12, O = 6, heads = 4, a = A / heads, d = D / heads;
  ParamStore store(17);
  MultiHeadAdditiveAttention att(store, "mha", D, Q, A, O, heads, init::uniform(0.7));
  Param& enc = rand_param(store, "enc", S * B, D);
  Param& q1 = rand_param(store, "q1", B, Q);
  Param& q2 = rand_param(store, "q2", B, Q);
  const Mat mask = time_major_mask(S, {4, 2, 3});
  const Mat key_mask = attention_key_mask(mask, S, B);
  auto fused = evaluate(store, [&](Graph& g) {
    AttnKeys keys = att.precompute(g.param(enc), mask, B);
    AttnOut o1 = att.step(keys, g.param(q1)), o2 = att.step(keys, g.param(q2));
    return concat_cols({o1.ctx, o1.alpha, o2.ctx, o2.alpha});
  });
  auto comp = evaluate(store, [&](Graph& g) {
    Var V = g.param(enc), K = matmul(V, g.param(store.get("mha/W_k")));
    auto step = [&](Var query, std::vector<Var>& out) {
      Var q = matmul(query, g.param(store.get("mha/W_q")));
      std::vector<Var> z;
      Var alpha_sum;
      for (Index h = 0; h < heads; ++h) {
        Var hid = tanh(add_tile_rows(slice_cols(K, h * a, a), slice_cols(q, h * a, a)));
        Var e = transpose(reshape(matmul(hid, g.param(store.get("mha/v"))), S, B));
        Var alpha = masked_softmax_rows(e, key_mask);
        z.push_back(weighted_sum_steps(alpha, slice_cols(V, h * d, d)));
        alpha_sum = h == 0 ? alpha : alpha_sum + alpha;
      }
      out.push_back(affine(concat_cols(z), g.param(store.get("mha/out/W")), g.param(store.get("mha/out/b"))));
      out.push_back(scale(alpha_sum, Real(1) / static_cast<Real>(heads)));
    };
    std::vector<Var> out;
    step(g.param(q1), out);
    step(g.param(q2), out);
    return concat_cols(out);
  });
  expect_same(fused, comp, store, 1e-12);
}

}  // namespace twin::test
