// Additive attention (float): exact zero weight on padding, padded batch == each sequence alone, and a
// hand-computed case. Gradients are checked in grad_nn.cc.
#include <gtest/gtest.h>

#include "graph/init.h"
#include "nn/attention.h"
#include "ops/ops.h"
#include "test_util.h"

namespace twin {
namespace {

using test::normal_mat;
using test::time_major_mask;

struct Fixture {
  static constexpr Index S = 5, B = 3, D = 4, Q = 3, A = 6;
  std::vector<Index> lengths = {5, 2, 3};
  ParamStore store{21};
  Attention att{store, "att", D, Q, A, init::uniform(0.5), /*key_bias=*/true};
  Rng rng{5};
  Mat enc = normal_mat(rng, S * B, D);
  Mat query = normal_mat(rng, B, Q);
  Mat mask = time_major_mask(S, lengths);
  Fixture() {
    store.get("att/b_k").value.setConstant(0.1f);
    // Garbage in the padded positions: it must not reach any real sequence's result.
    for (Index s = 0; s < S; ++s)
      for (Index b = 0; b < B; ++b)
        if (mask(s * B + b, 0) == 0) enc.row(s * B + b).setConstant(100.0f + static_cast<Real>(s));
  }
};

TEST(Attention, MaskedPositionsGetExactlyZeroWeightAndRowsSumToOne) {
  Fixture f;
  Graph g;
  AttnOut o = f.att.step(f.att.precompute(g.constant(f.enc), f.mask, f.B), g.constant(f.query));
  const Mat& alpha = o.alpha.val();
  ASSERT_EQ(alpha.rows(), f.B);
  ASSERT_EQ(alpha.cols(), f.S);
  EXPECT_EQ(o.ctx.rows(), f.B);
  EXPECT_EQ(o.ctx.cols(), f.D);
  for (Index b = 0; b < f.B; ++b) {
    for (Index s = 0; s < f.S; ++s) {
      if (s < f.lengths[static_cast<size_t>(b)])
        EXPECT_GT(alpha(b, s), 0.0f) << "b=" << b << " s=" << s;
      else
        EXPECT_EQ(alpha(b, s), 0.0f) << "b=" << b << " s=" << s;
    }
    EXPECT_NEAR(alpha.row(b).sum(), 1.0f, 1e-6f) << "b=" << b;
  }
}

TEST(Attention, PaddedPositionsReceiveExactlyZeroGradient) {
  Fixture f;
  ParamStore data;
  Param& enc = data.add("enc", f.S * f.B, f.D, nullptr);
  enc.value = f.enc;
  Graph g;
  AttnOut o = f.att.step(f.att.precompute(g.param(enc), f.mask, f.B), g.constant(f.query));
  Rng r(3);
  g.backward(sum_all(concat_cols({o.ctx, o.alpha}) * g.constant(normal_mat(r, f.B, f.D + f.S))));
  for (Index s = 0; s < f.S; ++s)
    for (Index b = 0; b < f.B; ++b) {
      const bool real = s < f.lengths[static_cast<size_t>(b)];
      const Real norm = enc.grad.row(s * f.B + b).cwiseAbs().sum();
      if (real)
        EXPECT_GT(norm, 0.0f) << "s=" << s << " b=" << b;
      else
        EXPECT_EQ(norm, 0.0f) << "s=" << s << " b=" << b;
    }
}

TEST(Attention, AllOnesMaskEqualsUnmasked) {
  Fixture f;
  Graph g;
  AttnKeys masked = f.att.precompute(g.constant(f.enc), Mat::Ones(f.S * f.B, 1), f.B);
  AttnKeys plain = f.att.precompute(g.constant(f.enc), Mat(), f.B);
  EXPECT_EQ(masked.mask.rows(), f.B);
  EXPECT_EQ(masked.mask.cols(), f.S);
  EXPECT_EQ(plain.mask.size(), 0);
  Var q = g.constant(f.query);
  AttnOut a = f.att.step(masked, q), b = f.att.step(plain, q);
  EXPECT_TRUE(a.alpha.val().isApprox(b.alpha.val(), 1e-6f)) << a.alpha.val() << "\nvs\n" << b.alpha.val();
  EXPECT_TRUE(a.ctx.val().isApprox(b.ctx.val(), 1e-6f)) << a.ctx.val() << "\nvs\n" << b.ctx.val();
}

TEST(Attention, PaddedBatchEqualsEachSequenceAlone) {
  Fixture f;
  Graph g;
  AttnOut batch = f.att.step(f.att.precompute(g.constant(f.enc), f.mask, f.B), g.constant(f.query));
  for (Index b = 0; b < f.B; ++b) {
    const Index len = f.lengths[static_cast<size_t>(b)];
    Mat enc_b(len, f.D);
    for (Index s = 0; s < len; ++s) enc_b.row(s) = f.enc.row(s * f.B + b);
    Graph g1;
    AttnOut alone = f.att.step(f.att.precompute(g1.constant(enc_b), Mat(), 1), g1.constant(f.query.row(b)));
    ASSERT_EQ(alone.alpha.cols(), len);
    for (Index s = 0; s < len; ++s)
      EXPECT_NEAR(batch.alpha.val()(b, s), alone.alpha.val()(0, s), 1e-6f) << "b=" << b << " s=" << s;
    for (Index d = 0; d < f.D; ++d)
      EXPECT_NEAR(batch.ctx.val()(b, d), alone.ctx.val()(0, d), 1e-5f) << "b=" << b << " d=" << d;
  }
}

// S=2, B=1, D=2, Q=2, A=1 with hand-chosen weights:
//   K = enc W_k = [1,-1]·[0.5,0.25]^T, [2,3]·[0.5,0.25]^T = 0.25, 1.75;   q W_q = [0.5,0.5]·[1,-2]^T = -0.5
//   e = 2 tanh(K - 0.5) = -0.489837, 1.696567;   α = softmax(e) = 0.100978, 0.899022
//   ctx = 0.100978 [1,-1] + 0.899022 [2,3] = [1.899022, 2.596088]   (values computed in double by hand)
TEST(Attention, HandComputedTwoPositions) {
  ParamStore store;
  Attention att(store, "att", 2, 2, 1, init::constant(0));
  store.get("att/W_k").value << 0.5f, 0.25f;
  store.get("att/W_q").value << 1.0f, -2.0f;
  store.get("att/v").value << 2.0f;
  Mat enc(2, 2), q(1, 2);
  enc << 1, -1, 2, 3;
  q << 0.5f, 0.5f;
  Graph g;
  AttnKeys keys = att.precompute(g.constant(enc), Mat(), 1);
  EXPECT_NEAR(keys.K.val()(0, 0), 0.25f, 1e-7f);
  EXPECT_NEAR(keys.K.val()(1, 0), 1.75f, 1e-7f);
  AttnOut o = att.step(keys, g.constant(q));
  EXPECT_NEAR(o.alpha.val()(0, 0), 0.1009780208572591, 1e-6);
  EXPECT_NEAR(o.alpha.val()(0, 1), 0.8990219791427408, 1e-6);
  EXPECT_NEAR(o.ctx.val()(0, 0), 1.8990219791427407, 1e-6);
  EXPECT_NEAR(o.ctx.val()(0, 1), 2.5960879165709634, 1e-6);

  // The same source with position 1 padded: all weight goes to position 0.
  Mat m(2, 1);
  m << 1, 0;
  AttnOut masked = att.step(att.precompute(g.constant(enc), m, 1), g.constant(q));
  EXPECT_EQ(masked.alpha.val()(0, 0), 1.0f);
  EXPECT_EQ(masked.alpha.val()(0, 1), 0.0f);
  EXPECT_EQ(masked.ctx.val()(0, 0), 1.0f);
  EXPECT_EQ(masked.ctx.val()(0, 1), -1.0f);
}

TEST(Attention, ParamNamesAndShapes) {
  ParamStore store;
  Attention att(store, "dec/att", 4, 3, 5, init::uniform(0.1), true);
  ASSERT_EQ(store.all().size(), 4u);
  EXPECT_EQ(store.get("dec/att/W_k").value.rows(), 4);
  EXPECT_EQ(store.get("dec/att/W_k").value.cols(), 5);
  EXPECT_EQ(store.get("dec/att/b_k").value.cols(), 5);
  EXPECT_EQ(store.get("dec/att/W_q").value.rows(), 3);
  EXPECT_EQ(store.get("dec/att/v").value.rows(), 5);
  EXPECT_EQ(store.get("dec/att/v").value.cols(), 1);
  ParamStore no_bias;
  Attention att2(no_bias, "att", 4, 3, 5, init::uniform(0.1));
  EXPECT_EQ(no_bias.find("att/b_k"), nullptr);
}

TEST(Attention, ShapeErrorsThrow) {
  Fixture f;
  Graph g;
  Var enc = g.constant(f.enc);
  EXPECT_THROW(f.att.precompute(enc, f.mask, 4), Error);                          // 15 rows, B=4
  EXPECT_THROW(f.att.precompute(g.constant(Mat::Zero(f.S * f.B, f.D + 1)), Mat(), f.B), Error);
  EXPECT_THROW(f.att.precompute(enc, Mat::Ones(f.S * f.B, 2), f.B), Error);       // mask not [S*B,1]
  Mat bad = f.mask;
  bad(0, 0) = 0.5f;
  EXPECT_THROW(f.att.precompute(enc, bad, f.B), Error);                           // mask not 0/1
  AttnKeys keys = f.att.precompute(enc, f.mask, f.B);
  EXPECT_THROW(f.att.step(keys, g.constant(Mat::Zero(f.B + 1, f.Q))), Error);    // wrong batch
  EXPECT_THROW(f.att.step(keys, g.constant(Mat::Zero(f.B, f.Q + 1))), Error);    // wrong query width
  EXPECT_THROW(f.att.step(AttnKeys{}, g.constant(f.query)), Error);               // keys never precomputed
}

TEST(Attention, InferModeMatchesTrainMode) {
  Fixture f;
  Graph gt(Mode::kTrain), gi(Mode::kInfer);
  AttnOut t = f.att.step(f.att.precompute(gt.constant(f.enc), f.mask, f.B), gt.constant(f.query));
  AttnOut i = f.att.step(f.att.precompute(gi.constant(f.enc), f.mask, f.B), gi.constant(f.query));
  EXPECT_EQ(t.ctx.val(), i.ctx.val());
  EXPECT_EQ(t.alpha.val(), i.alpha.val());
}

}  // namespace
}  // namespace twin
