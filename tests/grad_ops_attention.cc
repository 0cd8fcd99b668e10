// scaled_dot_attention (ops/attention_ops.h): double-precision gradient checks (padding, several heads,
// relative tables with a small k so that clipping happens, q = k = v one node) and equality of values and
// gradients with the composition of slice/select/matmul/masked-softmax ops it replaces.
#include <gtest/gtest.h>

#include <cmath>

#include "fused_compare.h"
#include "gradcheck.h"
#include "ops/ops.h"
#include "test_util.h"

namespace twin::test {

TEST(OpGrad, ScaledDotAttentionMaskedHeads) {
  GradCheck gc;
  const Index T = 4, B = 3, D = 6, H = 3;
  auto q = gc.input(T * B, D), k = gc.input(T * B, D), v = gc.input(T * B, D);
  const Mat mask = time_major_mask(T, {4, 2, 3});
  gc.check([&](Graph& g) { return scaled_dot_attention(q.in(g), k.in(g), v.in(g), mask, B, H); });
}

TEST(OpGrad, ScaledDotAttentionUnmaskedOneHead) {
  GradCheck gc;
  const Index T = 3, B = 2, D = 4;
  auto q = gc.input(T * B, D), k = gc.input(T * B, D), v = gc.input(T * B, D);
  gc.check([&](Graph& g) { return scaled_dot_attention(q.in(g), k.in(g), v.in(g), Mat(), B, 1); });
}

// T = 5 with k = 1: distances up to ±4 share the end rows of the tables.
TEST(OpGrad, ScaledDotAttentionRelativeClipped) {
  GradCheck gc;
  const Index T = 5, B = 2, D = 4, H = 2, K = 1;
  auto q = gc.input(T * B, D), k = gc.input(T * B, D), v = gc.input(T * B, D);
  auto rk = gc.input(2 * K + 1, D / H), rv = gc.input(2 * K + 1, D / H);
  const Mat mask = time_major_mask(T, {5, 3});
  gc.check([&](Graph& g) {
    return scaled_dot_attention(q.in(g), k.in(g), v.in(g), mask, B, H, rk.in(g), rv.in(g), K);
  });
}

TEST(OpGrad, ScaledDotAttentionRelativeKeysOnlyAndValuesOnly) {
  GradCheck gc;
  const Index T = 4, B = 2, D = 4, H = 2, K = 2;
  auto q = gc.input(T * B, D), k = gc.input(T * B, D), v = gc.input(T * B, D);
  auto rk = gc.input(2 * K + 1, D / H), rv = gc.input(2 * K + 1, D / H);
  const Mat mask = time_major_mask(T, {2, 4});
  gc.check([&](Graph& g) {
    Var a = scaled_dot_attention(q.in(g), k.in(g), v.in(g), mask, B, H, rk.in(g), Var{}, K);
    Var b = scaled_dot_attention(q.in(g), k.in(g), v.in(g), mask, B, H, Var{}, rv.in(g), K);
    return concat_cols({a, b});
  });
}

// Self-attention on the raw input: q, k and v are one node, so three gradients land in one matrix.
TEST(OpGrad, ScaledDotAttentionSharedInput) {
  GradCheck gc;
  const Index T = 3, B = 2, D = 4, H = 2, K = 1;
  auto x = gc.input(T * B, D), rk = gc.input(2 * K + 1, D / H);
  const Mat mask = time_major_mask(T, {3, 2});
  gc.check([&](Graph& g) {
    Var xv = x.in(g);
    return scaled_dot_attention(xv, xv, xv, mask, B, H, rk.in(g), rk.in(g), K);
  });
}

namespace {

// The same attention from existing ops, one (sequence, head) at a time.
Var composed_attention(Var q, Var k, Var v, const Mat& mask, Index B, Index H, Var rk, Var rv, Index K) {
  const Index T = q.rows() / B, D = q.cols(), dh = D / H, R = 2 * K + 1;
  const Real s = Real(1) / std::sqrt(static_cast<Real>(dh));
  std::vector<Var> per_seq;
  for (Index b = 0; b < B; ++b) {
    Ids rows;
    for (Index t = 0; t < T; ++t) rows.push_back(static_cast<std::int32_t>(t * B + b));
    Mat key_mask(T, T);
    for (Index j = 0; j < T; ++j) key_mask.col(j).setConstant(mask.size() ? mask(j * B + b, 0) : Real(1));
    std::vector<Var> per_head;
    for (Index h = 0; h < H; ++h) {
      Var qb = select_rows(slice_cols(q, h * dh, dh), rows);                 // [T, d_h]
      Var kb = select_rows(slice_cols(k, h * dh, dh), rows);
      Var vb = select_rows(slice_cols(v, h * dh, dh), rows);
      Var e = scale(matmul_nt(qb, kb), s);                                   // [T, T]
      if (rk.valid()) {
        Ids idx;                                                             // P[i, r(i,j)] as a flat gather
        for (Index i = 0; i < T; ++i)
          for (Index j = 0; j < T; ++j) idx.push_back(static_cast<std::int32_t>(i * R + relative_index(i, j, K)));
        Var p = reshape(scale(matmul_nt(qb, rk), s), T * R, 1);
        e = e + reshape(select_rows(p, idx), T, T);
      }
      Var alpha = masked_softmax_rows(e, key_mask);                          // [T, T]
      Var z = matmul(alpha, vb);                                             // [T, d_h]
      if (rv.valid()) {
        std::vector<Var> zr;
        for (Index i = 0; i < T; ++i) {
          Ids idx;
          for (Index j = 0; j < T; ++j) idx.push_back(static_cast<std::int32_t>(relative_index(i, j, K)));
          zr.push_back(matmul(slice_rows(alpha, i, 1), select_rows(rv, idx)));   // Σ_j α_ij a^V_ij  [1, d_h]
        }
        z = z + stack_rows(zr);
      }
      per_head.push_back(z);
    }
    per_seq.push_back(concat_cols(per_head));                                // [T, D]
  }
  Ids to_time_major;                                                         // row t*B + b <- b*T + t
  for (Index t = 0; t < T; ++t)
    for (Index b = 0; b < B; ++b) to_time_major.push_back(static_cast<std::int32_t>(b * T + t));
  return select_rows(stack_rows(per_seq), to_time_major);
}

}  // namespace

TEST(OpFused, ScaledDotAttentionEqualsComposed) {
  const Index T = 5, B = 3, D = 6, H = 2;
  for (Index K : {Index(-1), Index(0), Index(1), Index(3)}) {   // -1: no relative tables
    for (bool masked : {false, true}) {
      ParamStore store;
      Param& q = rand_param(store, "q", T * B, D);
      Param& k = rand_param(store, "k", T * B, D);
      Param& v = rand_param(store, "v", T * B, D);
      Param* rk = K >= 0 ? &rand_param(store, "rel_k", 2 * K + 1, D / H) : nullptr;
      Param* rv = K >= 0 ? &rand_param(store, "rel_v", 2 * K + 1, D / H) : nullptr;
      const Mat mask = masked ? time_major_mask(T, {5, 2, 4}) : Mat();
      auto args = [&](Graph& g) {
        return std::tuple{g.param(q), g.param(k), g.param(v), rk ? g.param(*rk) : Var{}, rv ? g.param(*rv) : Var{}};
      };
      auto fused = evaluate(store, [&](Graph& g) {
        auto [qv, kv, vv, rkv, rvv] = args(g);
        return scaled_dot_attention(qv, kv, vv, mask, B, H, rkv, rvv, std::max<Index>(K, 0));
      });
      auto composed = evaluate(store, [&](Graph& g) {
        auto [qv, kv, vv, rkv, rvv] = args(g);
        return composed_attention(qv, kv, vv, mask, B, H, rkv, rvv, std::max<Index>(K, 0));
      });
      SCOPED_TRACE("k=" + std::to_string(K) + (masked ? " masked" : " unmasked"));
      expect_same(fused, composed, store, 1e-12);
    }
  }
}

// additive_scores_heads (ops/additive_heads.h): the multi-head additive scores of DTMT's attention.
TEST(OpGrad, AdditiveScoresHeads) {
  GradCheck gc;
  const Index S = 3, B = 2, A = 6, heads = 3;
  auto K = gc.input(S * B, A), q = gc.input(B, A), v = gc.input(A / heads, 1);
  gc.check([&](Graph& g) { return additive_scores_heads(K.in(g), q.in(g), v.in(g), heads); });
}

// Equal, values and gradients, to the per-head composition it replaces: for head h, the [B, S] scores
// transpose(reshape(tanh(K_h + q_h tiled) v, S, B)) are rows b*n + h of the fused result.
TEST(OpFused, AdditiveScoresHeadsEqualsPerHeadComposition) {
  const Index S = 4, B = 3, A = 8, heads = 4, a = A / heads;
  ParamStore store;
  Param& K = rand_param(store, "K", S * B, A);
  Param& q = rand_param(store, "q", B, A);
  Param& v = rand_param(store, "v", a, 1);
  auto fused =
      evaluate(store, [&](Graph& g) { return additive_scores_heads(g.param(K), g.param(q), g.param(v), heads); });
  auto comp = evaluate(store, [&](Graph& g) {
    std::vector<Var> rows;   // row b*n + h of the result, in that order
    std::vector<Var> per_head;
    for (Index h = 0; h < heads; ++h) {
      Var hid = tanh(add_tile_rows(slice_cols(g.param(K), h * a, a), slice_cols(g.param(q), h * a, a)));
      per_head.push_back(transpose(reshape(matmul(hid, g.param(v)), S, B)));   // [B, S]
    }
    for (Index b = 0; b < B; ++b)
      for (Index h = 0; h < heads; ++h) rows.push_back(slice_rows(per_head[static_cast<size_t>(h)], b, 1));
    return stack_rows(rows);
  });
  expect_same(fused, comp, store, 1e-12);
}

TEST(OpFused, AdditiveScoresHeadsRejectsBadShapes) {
  Graph g;
  Var K = g.constant(Mat::Ones(6, 6)), q = g.constant(Mat::Ones(2, 6)), v = g.constant(Mat::Ones(2, 1));
  EXPECT_NO_THROW(additive_scores_heads(K, q, v, 3));
  EXPECT_THROW(additive_scores_heads(K, q, v, 4), std::exception);                          // 4 does not divide 6
  EXPECT_THROW(additive_scores_heads(K, q, g.constant(Mat::Ones(3, 1)), 3), std::exception);  // v not [a, 1]
  EXPECT_THROW(additive_scores_heads(g.constant(Mat::Ones(5, 6)), q, v, 3), std::exception);  // 5 rows, B = 2
}

}  // namespace twin::test
