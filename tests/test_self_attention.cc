// Self-attention encoder and its fused attention op (float): padding gets exactly zero attention and rows
// sum to one; a padded batch equals each sequence alone; relative positions clip at k; sinusoidal values;
// position encodings equal "none" plus the added table; max_len and config errors; closed-form parameter
// counts and names; dropout only in training; one and two threads agree. Gradients: grad_ops_attention.cc
// and grad_self_attention.cc.
#include <gtest/gtest.h>

#include <cmath>

#include "base/json_reader.h"
#include "base/threads.h"
#include "graph/init.h"
#include "nn/self_attention.h"
#include "ops/ops.h"
#include "test_util.h"

namespace twin {
namespace {

using test::contains;
using test::error_of;
using test::normal_mat;
using test::time_major_mask;

SelfAttentionConfig small_cfg(const std::string& position, int layers = 2) {
  SelfAttentionConfig c;
  c.dim = 8;
  c.heads = 2;
  c.ff_dim = 12;
  c.layers = layers;
  c.position = *value_of(kPositionEncodingNames, position);   // tests name positions by their JSON spelling
  c.max_len = 10;
  c.clip_k = 2;
  c.dropout = 0.1;
  return c;
}

const std::vector<std::string> kPositions = {"sinusoidal", "learned", "relative", "none"};

// x [T*B, D] with garbage (large constants) in the padded rows.
Mat padded_input(Index T, const std::vector<Index>& lengths, Index D, std::uint64_t seed) {
  Rng rng(seed);
  const auto B = static_cast<Index>(lengths.size());
  Mat x = normal_mat(rng, T * B, D);
  for (Index t = 0; t < T; ++t)
    for (Index b = 0; b < B; ++b)
      if (t >= lengths[static_cast<size_t>(b)]) x.row(t * B + b).setConstant(50.0f + static_cast<Real>(t));
  return x;
}

TEST(SelfAttention, PaddingGetsExactlyZeroAttentionAndRowsSumToOne) {
  const Index T = 6;
  const std::vector<Index> len = {6, 2, 4};
  const auto B = static_cast<Index>(len.size());
  for (const auto& pos : kPositions) {
    ParamStore store(3);
    const SelfAttentionConfig cfg = small_cfg(pos);
    SelfAttentionEncoder enc(cfg, store, "enc", init::uniform(0.3));
    Graph g(Mode::kInfer);
    Rng rng(1);
    std::vector<Mat> att = {Mat::Ones(1, 1)};   // stale content must be dropped
    Var y = enc.apply(g.constant(padded_input(T, len, cfg.dim, 4)), time_major_mask(T, len), B, rng, &att);
    EXPECT_EQ(y.rows(), T * B);
    EXPECT_EQ(y.cols(), cfg.dim);
    EXPECT_TRUE(y.val().allFinite()) << pos;
    ASSERT_EQ(att.size(), static_cast<size_t>(cfg.layers * cfg.heads)) << pos;
    for (const Mat& a : att) {
      ASSERT_EQ(a.rows(), B * T);
      ASSERT_EQ(a.cols(), T);
      for (Index b = 0; b < B; ++b)
        for (Index i = 0; i < T; ++i) {
          for (Index j = 0; j < T; ++j) {
            if (j < len[static_cast<size_t>(b)])
              EXPECT_GT(a(b * T + i, j), 0.0f) << pos << " b=" << b << " i=" << i << " j=" << j;
            else
              EXPECT_EQ(a(b * T + i, j), 0.0f) << pos << " b=" << b << " i=" << i << " j=" << j;
          }
          EXPECT_NEAR(a.row(b * T + i).sum(), 1.0f, 1e-5f) << pos << " b=" << b << " i=" << i;
        }
    }
  }
}

TEST(SelfAttention, PaddedBatchEqualsEachSequenceAlone) {
  const Index T = 5;
  const std::vector<Index> len = {5, 1, 3};
  const auto B = static_cast<Index>(len.size());
  for (const auto& pos : kPositions) {
    ParamStore store(5);
    const SelfAttentionConfig cfg = small_cfg(pos);
    SelfAttentionEncoder enc(cfg, store, "enc", init::uniform(0.3));
    const Mat x = padded_input(T, len, cfg.dim, 6);
    Graph g(Mode::kInfer);
    Rng rng(1);
    const Mat y = enc.apply(g.constant(x), time_major_mask(T, len), B, rng).val();
    for (Index b = 0; b < B; ++b) {
      const Index n = len[static_cast<size_t>(b)];
      Graph g1(Mode::kInfer);
      const Mat alone = enc.apply(g1.constant(test::sequence_rows(x, b, B, n)), Mat(), 1, rng).val();
      EXPECT_LE(test::max_abs_diff(test::sequence_rows(y, b, B, n), alone), 1e-5) << pos << " b=" << b;
    }
  }
}

TEST(SelfAttention, RelativeIndexClipsAtK) {
  EXPECT_EQ(relative_index(0, 0, 1), 1);
  EXPECT_EQ(relative_index(0, 1, 1), 2);
  EXPECT_EQ(relative_index(0, 2, 1), 2);   // j − i = 2 and 5 share the row of distance +k
  EXPECT_EQ(relative_index(0, 5, 1), 2);
  EXPECT_EQ(relative_index(5, 0, 1), 0);   // and −5 the row of −k
  EXPECT_EQ(relative_index(4, 3, 1), 0);
  EXPECT_EQ(relative_index(2, 3, 2), 3);
  EXPECT_EQ(relative_index(0, 7, 2), 4);
  EXPECT_EQ(relative_index(3, 3, 0), 0);   // k = 0: one row for every pair
}

// End to end: with k = 1, attention over T = 6 equals unclipped attention (k = T−1 = 5) whose tables copy
// the row of ±1 into every farther distance; so distances beyond k contribute exactly the row of ±k. And
// the unclipped tables' far rows do matter (changing one changes the output).
TEST(SelfAttention, RelativeDistancesBeyondKUseTheClippedRow) {
  const Index T = 6, B = 2, D = 4, H = 2, dh = D / H, K = 1, Kfull = T - 1;
  Rng rng(9);
  const Mat q = normal_mat(rng, T * B, D), k = normal_mat(rng, T * B, D), v = normal_mat(rng, T * B, D);
  const Mat rk = normal_mat(rng, 2 * K + 1, dh), rv = normal_mat(rng, 2 * K + 1, dh);
  Mat rk_full(2 * Kfull + 1, dh), rv_full(2 * Kfull + 1, dh);
  for (Index dist = -Kfull; dist <= Kfull; ++dist) {
    rk_full.row(dist + Kfull) = rk.row(relative_index(0, dist, K));
    rv_full.row(dist + Kfull) = rv.row(relative_index(0, dist, K));
  }
  const Mat mask = time_major_mask(T, {6, 5});
  auto run = [&](const Mat& tk, const Mat& tv, Index clip, std::vector<Mat>* w) {
    Graph g(Mode::kInfer);
    return Mat(scaled_dot_attention(g.constant(q), g.constant(k), g.constant(v), mask, B, H, g.constant(tk),
                                    g.constant(tv), clip, w).val());
  };
  std::vector<Mat> w_clipped, w_full;
  const Mat clipped = run(rk, rv, K, &w_clipped);
  const Mat full = run(rk_full, rv_full, Kfull, &w_full);
  EXPECT_LE(test::max_abs_diff(clipped, full), 1e-5);
  ASSERT_EQ(w_clipped.size(), static_cast<size_t>(H));
  for (Index h = 0; h < H; ++h) EXPECT_LE(test::max_abs_diff(w_clipped[h], w_full[h]), 1e-6);
  for (Index far : {Index(0), 2 * Kfull}) {   // distance −5 or +5: used by one (i, j) pair only
    Mat rk_changed = rk_full;
    rk_changed.row(far).array() += 1.0f;
    EXPECT_GT(test::max_abs_diff(run(rk_changed, rv_full, Kfull, nullptr), full), 1e-3) << "row " << far;
  }
}

TEST(SelfAttention, SinusoidalValuesByHand) {
  const Mat pe = sinusoidal_positions(4, 6);
  ASSERT_EQ(pe.rows(), 4);
  ASSERT_EQ(pe.cols(), 6);
  for (Index c = 0; c < 6; ++c) EXPECT_FLOAT_EQ(pe(0, c), c % 2 == 0 ? 0.0f : 1.0f);
  EXPECT_NEAR(pe(1, 0), 0.8414710f, 1e-6f);       // sin(1)
  EXPECT_NEAR(pe(1, 1), 0.5403023f, 1e-6f);       // cos(1)
  EXPECT_NEAR(pe(2, 2), 0.0926985f, 1e-6f);       // sin(2 / 10000^(2/6)) = sin(0.0928318)
  EXPECT_NEAR(pe(2, 3), 0.9956942f, 1e-6f);       // cos(0.0928318)
  EXPECT_NEAR(pe(3, 4), 0.0064633f, 1e-6f);       // sin(3 / 10000^(4/6)) = sin(0.0064633)
  EXPECT_NEAR(pe(3, 5), 0.9999791f, 1e-6f);       // cos(0.0064633)
  EXPECT_NEAR(sinusoidal_positions(3, 5)(2, 4), 0.0012619f, 1e-6f);   // odd D: last column sin(2 / 10000^(4/5))
}

// The sinusoidal and learned encoders equal the position-free encoder (same weights) applied to x + table.
TEST(SelfAttention, AbsolutePositionsAreAddedToTheInput) {
  const Index T = 4;
  const std::vector<Index> len = {4, 3};
  const auto B = static_cast<Index>(len.size());
  for (const std::string pos : {"sinusoidal", "learned"}) {
    ParamStore store(8), plain_store(9);
    const SelfAttentionConfig cfg = small_cfg(pos);
    SelfAttentionEncoder enc(cfg, store, "enc", init::uniform(0.3));
    SelfAttentionEncoder plain(small_cfg("none"), plain_store, "enc", init::uniform(0.3));
    for (const auto& p : plain_store.all()) p->value = store.get(p->name).value;
    const Mat table = pos == "learned" ? Mat(store.get("enc/position").value) : sinusoidal_positions(T, cfg.dim);
    const Mat x = padded_input(T, len, cfg.dim, 3);
    Mat shifted = x;
    for (Index t = 0; t < T; ++t)
      for (Index b = 0; b < B; ++b) shifted.row(t * B + b) += table.row(t);
    Graph g(Mode::kInfer);
    Rng rng(1);
    const Mat mask = time_major_mask(T, len);
    EXPECT_LE(test::max_abs_diff(enc.apply(g.constant(x), mask, B, rng).val(),
                                 plain.apply(g.constant(shifted), mask, B, rng).val()),
              1e-6)
        << pos;
  }
}

TEST(SelfAttention, LearnedPositionsBeyondMaxLenNameTheLength) {
  ParamStore store;
  SelfAttentionConfig cfg = small_cfg("learned");
  cfg.max_len = 3;
  SelfAttentionEncoder enc(cfg, store, "enc", init::uniform(0.3));
  Graph g;
  Rng rng(1);
  const std::string err = error_of([&] { enc.apply(g.constant(Mat::Zero(5 * 2, cfg.dim)), Mat(), 2, rng); });
  EXPECT_TRUE(contains(err, "sequence length 5") && contains(err, "max_len=3")) << err;
  EXPECT_EQ(error_of([&] { enc.apply(g.constant(Mat::Zero(3 * 2, cfg.dim)), Mat(), 2, rng); }), test::kNoErrorThrown);
}

TEST(SelfAttention, ExpectedParamsEqualsTheStoreAndNames) {
  for (const auto& pos : kPositions)
    for (int layers : {1, 2})
      for (Index ff : {Index(0), Index(7)}) {
        SelfAttentionConfig cfg = small_cfg(pos, layers);
        cfg.ff_dim = ff;
        ParamStore store;
        SelfAttentionEncoder enc(cfg, store, "cls/enc", init::uniform(0.1));
        EXPECT_EQ(store.total_size(), SelfAttentionEncoder::expected_params(cfg)) << pos << " " << layers << " " << ff;
        EXPECT_EQ(enc.config().ff_dim, ff == 0 ? 4 * cfg.dim : ff);
        const Index F = enc.config().ff_dim;
        EXPECT_EQ(store.get("cls/enc/l" + std::to_string(layers - 1) + "/Wq").value.rows(), cfg.dim);
        EXPECT_EQ(store.get("cls/enc/l0/W1").value.cols(), F);
        EXPECT_EQ(store.get("cls/enc/l0/ln1/gain").value, Mat(Mat::Ones(1, cfg.dim)));
        EXPECT_EQ(store.get("cls/enc/l0/ln2/bias").value, Mat(Mat::Zero(1, cfg.dim)));
        EXPECT_EQ(store.get("cls/enc/l0/b1").value, Mat(Mat::Zero(1, F)));
        EXPECT_EQ(store.find("cls/enc/l0/rel_k") != nullptr, pos == "relative");
        EXPECT_EQ(store.find("cls/enc/position") != nullptr, pos == "learned");
        if (pos == "relative") {
          EXPECT_EQ(store.get("cls/enc/l0/rel_v").value.rows(), 2 * cfg.clip_k + 1);
        }
      }
  // Hand count: D=8, F=12, h=2, k=2, one layer: 4·64 + 2·96 + 12 + 8 + 4·8 + 2·5·4 = 540.
  SelfAttentionConfig cfg = small_cfg("relative", 1);
  EXPECT_EQ(SelfAttentionEncoder::expected_params(cfg), 540);
}

TEST(SelfAttention, DropoutOnlyInTraining) {
  const Index T = 4, B = 2;
  SelfAttentionConfig cfg = small_cfg("relative");
  cfg.dropout = 0.5;
  SelfAttentionConfig no_drop = cfg;
  no_drop.dropout = 0;
  ParamStore store(4), store0(4);
  SelfAttentionEncoder enc(cfg, store, "enc", init::uniform(0.3));
  SelfAttentionEncoder enc0(no_drop, store0, "enc", init::uniform(0.3));
  const Mat x = padded_input(T, {4, 4}, cfg.dim, 2);
  auto run = [&](const SelfAttentionEncoder& e, Mode mode, std::uint64_t seed) {
    Graph g(mode);
    Rng rng(seed);
    return Mat(e.apply(g.constant(x), Mat(), B, rng).val());
  };
  const Mat infer = run(enc, Mode::kInfer, 1);
  EXPECT_EQ(infer, run(enc, Mode::kInfer, 2));            // no randomness at inference
  EXPECT_EQ(infer, run(enc0, Mode::kTrain, 1));           // and exactly the dropout-free training network
  const Mat train1 = run(enc, Mode::kTrain, 1);
  EXPECT_GT(test::max_abs_diff(train1, infer), 1e-3);     // dropout acts in training
  EXPECT_GT(test::max_abs_diff(train1, run(enc, Mode::kTrain, 2)), 1e-3);
  EXPECT_EQ(train1, run(enc, Mode::kTrain, 1));           // and is reproducible from the seed
}

TEST(SelfAttention, ConfigAndInputErrors) {
  ParamStore store;
  SelfAttentionConfig cfg = small_cfg("sinusoidal");
  cfg.heads = 3;
  EXPECT_TRUE(contains(error_of([&] { SelfAttentionEncoder(cfg, store, "e", init::uniform(0.1)); }), "heads=3"));
  // A misspelt position is refused by the key table, naming the key and every allowed spelling.
  JsonReader bad(nlohmann::json{{"position", "absolute"}}, "x.json", "model.self_attention");
  EXPECT_TRUE(contains(error_of([&] { self_attention_table().parse(bad); }),
                       "one of sinusoidal, learned, relative, none"));
  SelfAttentionEncoder enc(small_cfg("relative"), store, "ok", init::uniform(0.1));
  Graph g;
  Rng rng(1);
  EXPECT_TRUE(contains(error_of([&] { enc.apply(g.constant(Mat::Zero(6, 5)), Mat(), 2, rng); }), "needs D=8"));
  EXPECT_TRUE(contains(error_of([&] { enc.apply(g.constant(Mat::Zero(6, 8)), Mat(), 4, rng); }), "batch B=4"));
  Mat empty_seq = time_major_mask(3, {3, 0});
  EXPECT_TRUE(contains(error_of([&] { enc.apply(g.constant(Mat::Zero(6, 8)), empty_seq, 2, rng); }),
                       "sequence 1 has no real position"));
  Var x = g.constant(Mat::Zero(6, 4));
  EXPECT_TRUE(contains(error_of([&] { scaled_dot_attention(x, x, x, Mat(), 2, 2, g.constant(Mat::Zero(2, 2)), Var{}, 1); }),
                       "must be [2k+1 x d_h] = [3x2]"));
}

// Above the parallel threshold: one and two threads give the same values and gradients.
TEST(SelfAttention, OpSameOnOneAndTwoThreads) {
  const Index T = 16, B = 8, D = 64, H = 4, K = 3;
  Rng rng(12);
  ParamStore data;
  auto add = [&](const char* n, Index r, Index c) -> Param& {
    Param& p = data.add(n, r, c, nullptr);
    p.value = normal_mat(rng, r, c);
    return p;
  };
  Param &q = add("q", T * B, D), &k = add("k", T * B, D), &v = add("v", T * B, D);
  Param &rk = add("rk", 2 * K + 1, D / H), &rv = add("rv", 2 * K + 1, D / H);
  const Mat mask = time_major_mask(T, {16, 3, 9, 16, 1, 12, 5, 16});
  const Mat r = normal_mat(rng, T * B, D);
  const int saved = num_threads();
  std::vector<std::vector<Mat>> runs;
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    data.zero_grad();
    Graph g;
    Var y = scaled_dot_attention(g.param(q), g.param(k), g.param(v), mask, B, H, g.param(rk), g.param(rv), K);
    g.backward(sum_all(y * g.constant(r)));
    runs.push_back({y.val()});
    for (const auto& p : data.all()) runs.back().push_back(p->grad);
  }
  set_num_threads(saved);
  for (size_t i = 0; i < runs[0].size(); ++i) EXPECT_LE(test::max_abs_diff(runs[0][i], runs[1][i]), 1e-5) << i;
}

}  // namespace
}  // namespace twin
