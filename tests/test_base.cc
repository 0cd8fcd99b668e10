// Foundation tests: Rng, ParamStore, initialisers and the Graph's mode and loss rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>

#include "graph/init.h"
#include "ops/ops.h"

namespace twin {

namespace {
std::vector<std::uint64_t> draws(Rng& r, int n) {
  std::vector<std::uint64_t> out;
  for (int i = 0; i < n; ++i) out.push_back(r.next_u64());
  return out;
}

Mat gram(const Mat& q) { return q.transpose() * q; }   // Q^T Q
}  // namespace

// ---- Rng ----

TEST(RngTest, SameSeedSameStreamDifferentSeedDifferent) {
  Rng a(42), b(42), c(43);
  EXPECT_EQ(draws(a, 50), draws(b, 50));
  EXPECT_NE(draws(a, 50), draws(c, 50));
  Rng u1(7), u2(7);
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(u1.uniform(-1, 1), u2.uniform(-1, 1));
    EXPECT_EQ(u1.normal(0, 1), u2.normal(0, 1));
  }
  Rng s(42);
  s.next_u64();
  s.seed(42);   // re-seeding restarts the stream
  Rng fresh(42);
  EXPECT_EQ(draws(s, 10), draws(fresh, 10));
}

TEST(RngTest, SaveRestoreContinuesTheIdenticalStream) {
  Rng r(5);
  draws(r, 17);
  r.normal(0, 1);
  const std::string state = r.save();
  const auto expected = draws(r, 30);
  Rng other(999);
  other.restore(state);
  EXPECT_EQ(draws(other, 30), expected);
  r.restore(state);   // restoring into the same generator rewinds it
  EXPECT_EQ(draws(r, 30), expected);
  EXPECT_EQ(Rng(5).save(), Rng(5).save());
}

TEST(RngTest, RestoreOfGarbageThrows) {
  Rng r(1);
  const auto before = r.save();
  EXPECT_THROW(r.restore(""), Error);
  EXPECT_THROW(r.restore("not a generator state"), Error);
  EXPECT_THROW(r.restore("1 2 3"), Error);                       // truncated
  const std::string s = before;
  EXPECT_THROW(r.restore(s.substr(0, s.size() / 2)), Error);    // cut in half
  EXPECT_EQ(r.save(), before);   // a failed restore leaves the generator untouched
}

TEST(RngTest, UniformIntBoundsAndCoverage) {
  Rng r(3);
  std::set<std::int64_t> seen;
  for (int i = 0; i < 2000; ++i) {
    const auto v = r.uniform_int(-3, 4);
    ASSERT_GE(v, -3);
    ASSERT_LE(v, 4);
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 8u);   // inclusive on both ends
  EXPECT_EQ(r.uniform_int(5, 5), 5);
  EXPECT_THROW(r.uniform_int(2, 1), Error);
  // The whole int64 range is one legal (if unusual) request.
  const auto lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
  std::set<bool> signs;
  for (int i = 0; i < 64; ++i) signs.insert(r.uniform_int(lo, hi) < 0);
  EXPECT_EQ(signs.size(), 2u);
  for (int i = 0; i < 64; ++i) {
    const auto v = r.uniform_int(lo, lo + 1);
    EXPECT_TRUE(v == lo || v == lo + 1);
  }
}

TEST(RngTest, UniformNormalBernoulliRanges) {
  Rng r(11);
  double sum = 0, sq = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const Real u = r.uniform(-2, 3);
    ASSERT_GE(u, -2);
    ASSERT_LE(u, 3);
    const double z = r.normal(1, 2);
    sum += z;
    sq += z * z;
  }
  const double mean = sum / n, sd = std::sqrt(sq / n - mean * mean);
  EXPECT_NEAR(mean, 1, 0.05);   // seeded: a fixed number, not a flaky statistic
  EXPECT_NEAR(sd, 2, 0.05);
  for (int i = 0; i < 100; ++i) {
    EXPECT_FALSE(r.bernoulli(0));
    EXPECT_TRUE(r.bernoulli(1));
  }
}

TEST(RngTest, ShuffleIsADeterministicPermutation) {
  std::vector<int> a(20), b(20), c(20);
  std::iota(a.begin(), a.end(), 0);
  b = a;
  c = a;
  Rng r1(8), r2(8), r3(9);
  r1.shuffle(a.begin(), a.end());
  r2.shuffle(b.begin(), b.end());
  r3.shuffle(c.begin(), c.end());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  std::vector<int> sorted = a, id(20);
  std::iota(id.begin(), id.end(), 0);
  EXPECT_NE(a, id);
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, id);
  std::vector<int> one = {7};
  r1.shuffle(one.begin(), one.end());   // trivial ranges are fine
  EXPECT_EQ(one, std::vector<int>{7});
}

// ---- ParamStore ----

TEST(ParamStoreTest, UniqueNamesAndLookup) {
  ParamStore store;
  Param& w = store.add("enc/W", 3, 4, init::constant(1));
  store.add("enc/b", 1, 4, nullptr);
  EXPECT_THROW(store.add("enc/W", 2, 2, nullptr), Error);
  EXPECT_THROW(store.add("", 2, 2, nullptr), Error);
  EXPECT_THROW(store.add("zero", 0, 2, nullptr), Error);
  EXPECT_EQ(&store.get("enc/W"), &w);
  EXPECT_EQ(store.find("enc/W"), &w);
  EXPECT_EQ(store.find("dec/W"), nullptr);
  EXPECT_EQ(store.all().size(), 2u);
  EXPECT_EQ(store.all()[0]->name, "enc/W");   // creation order is kept
  EXPECT_EQ(w.grad, Mat::Zero(3, 4));
  try {
    store.get("dec/W");
    ADD_FAILURE() << "get() of a missing name did not throw";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("dec/W"), std::string::npos) << msg;   // names what was asked for
    EXPECT_NE(msg.find("enc/W"), std::string::npos) << msg;   // and what exists
  }
  EXPECT_EQ(join_name("enc", "W"), "enc/W");
  EXPECT_EQ(join_name("", "W"), "W");
  EXPECT_EQ(join_name("enc", ""), "enc");
}

TEST(ParamStoreTest, TableListsNamesShapesAndTotal) {
  ParamStore store;
  store.add("rnn/W", 3, 4, nullptr);
  store.add("rnn/U", 4, 4, nullptr).trainable = false;
  EXPECT_EQ(store.total_size(), 28);
  EXPECT_EQ(store.trainable().size(), 1u);
  const std::string t = store.table();
  EXPECT_NE(t.find("rnn/W"), std::string::npos) << t;
  EXPECT_NE(t.find("rnn/U"), std::string::npos) << t;
  EXPECT_NE(t.find("[3, 4]"), std::string::npos) << t;
  EXPECT_NE(t.find("(frozen)"), std::string::npos) << t;
  EXPECT_NE(t.find("total"), std::string::npos) << t;
  EXPECT_NE(t.find("28"), std::string::npos) << t;
}

TEST(ParamStoreTest, InitIsDeterministicPerSeed) {
  ParamStore a(3), b(3), c(4);
  for (ParamStore* s : {&a, &b, &c}) {
    s->add("x", 2, 3, init::uniform(0.08f));
    s->add("y", 3, 3, init::normal(1));
  }
  EXPECT_EQ(a.get("y").value, b.get("y").value);
  EXPECT_NE(a.get("y").value, c.get("y").value);
  EXPECT_LE(a.get("x").value.cwiseAbs().maxCoeff(), 0.08f);
}

TEST(ParamStoreTest, ZeroGradDenseAndSparse) {
  ParamStore store;
  Param& w = store.add("W", 3, 2, init::constant(1));
  Param& e = store.add("E", 6, 2, init::constant(1));
  // A realistic pass: dense W (marks all) and sparse E (marks rows 1 and 4).
  Graph g;
  Var h = lookup(g.param(e), {1, 4, 1});                                     // [3, 2]
  g.backward(sum_all(mul_col(h, g.constant(Mat::Ones(3, 1))) + g.param(w)));
  EXPECT_TRUE(w.all_touched);
  EXPECT_FALSE(e.all_touched);
  EXPECT_TRUE(e.row_touched(1) && e.row_touched(4));
  EXPECT_FALSE(e.row_touched(0) || e.row_touched(2));
  EXPECT_EQ(e.grad(1, 0), 2);
  EXPECT_EQ(e.grad(4, 1), 1);
  EXPECT_EQ(e.grad(0, 0), 0);
  EXPECT_EQ(w.grad, Mat::Ones(3, 2));
  store.zero_grad();
  EXPECT_EQ(w.grad, Mat::Zero(3, 2));
  EXPECT_EQ(e.grad, Mat::Zero(6, 2));
  EXPECT_TRUE(e.touched.empty());
  EXPECT_FALSE(w.all_touched);
  // A gradient written without any marks (e.g. by hand) is still zeroed: the dense fallback.
  e.grad.setConstant(3);
  store.zero_grad();
  EXPECT_EQ(e.grad, Mat::Zero(6, 2));
}

// ---- initialisers ----

TEST(InitTest, OrthogonalSquareAndPerBlock) {
  Rng r(17);
  Mat q(6, 6);
  init::orthogonal()(q, r);
  EXPECT_LE((gram(q) - Mat::Identity(6, 6)).cwiseAbs().maxCoeff(), 1e-5);
  const Index H = 5;
  Mat u(H, 3 * H);   // a recurrent [H, 3H]: each [H, H] gate block is orthogonal on its own
  init::orthogonal()(u, r);
  for (Index k = 0; k < 3; ++k) {
    const Mat blk = u.middleCols(k * H, H);
    EXPECT_LE((gram(blk) - Mat::Identity(H, H)).cwiseAbs().maxCoeff(), 1e-5) << "block " << k;
  }
  EXPECT_GT((u.middleCols(0, H) - u.middleCols(H, H)).cwiseAbs().maxCoeff(), 0.1);   // blocks differ
  Mat tall(3 * H, H);
  init::orthogonal()(tall, r);
  for (Index k = 0; k < 3; ++k)
    EXPECT_LE((gram(tall.middleRows(k * H, H)) - Mat::Identity(H, H)).cwiseAbs().maxCoeff(), 1e-5);
  Mat scaled(4, 4);
  init::orthogonal(2)(scaled, r);
  EXPECT_LE((gram(scaled) - 4 * Mat::Identity(4, 4)).cwiseAbs().maxCoeff(), 1e-4);
}

TEST(InitTest, GlorotBoundsAndOthers) {
  Rng r(2);
  Mat w(30, 50);
  init::glorot_uniform()(w, r);
  const Real s = std::sqrt(Real(6) / Real(80));
  EXPECT_LE(w.cwiseAbs().maxCoeff(), s);
  EXPECT_GT(w.cwiseAbs().maxCoeff(), 0.95f * s);   // fills the range, not a narrower one
  EXPECT_LT(w.minCoeff(), 0);
  Mat c(2, 2);
  init::constant(0.5f)(c, r);
  EXPECT_EQ(c, Mat::Constant(2, 2, 0.5f));
  init::identity()(c, r);
  EXPECT_EQ(c, Mat(Mat::Identity(2, 2)));
  Mat rect(2, 3);
  EXPECT_THROW(init::identity()(rect, r), Error);
}

// ---- Graph mode and loss rules ----

TEST(GraphMode, InferenceHasNoGradientAndBackwardThrows) {
  ParamStore store;
  Param& w = store.add("W", 2, 2, init::constant(1));
  Graph g(Mode::kInfer);
  EXPECT_FALSE(g.training());
  Var y = sum_all(tanh(matmul(g.constant(Mat::Ones(3, 2)), g.param(w))));
  EXPECT_FALSE(g.needs_grad(g.param(w).id));
  EXPECT_FALSE(g.needs_grad(y.id));
  EXPECT_THROW(g.backward(y), Error);
  EXPECT_EQ(w.grad, Mat::Zero(2, 2));
  EXPECT_FALSE(w.all_touched);
}

TEST(GraphMode, LossMustBeOneByOneAndFromThisGraph) {
  ParamStore store;
  Param& w = store.add("W", 2, 2, init::constant(1));
  Graph g;
  Var y = g.param(w) * g.param(w);
  try {
    g.backward(y);
    ADD_FAILURE() << "a [2x2] loss was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("1x1"), std::string::npos) << e.what();
  }
  Graph other;
  Var l = sum_all(other.param(w));
  EXPECT_THROW(g.backward(l), Error);
  EXPECT_EQ(w.grad, Mat::Zero(2, 2));
  g.backward(sum_all(y));
  EXPECT_EQ(w.grad, Mat::Constant(2, 2, 2));   // d/dw Σ w² = 2w
}

TEST(GraphMode, FrozenParamAndConstantsGetNoGradient) {
  ParamStore store;
  Param& w = store.add("W", 2, 2, init::constant(1));
  Param& f = store.add("F", 2, 2, init::constant(3));
  f.trainable = false;
  Graph g;
  Var c = g.constant(Mat::Ones(2, 2));
  EXPECT_FALSE(g.needs_grad(c.id));
  EXPECT_FALSE(g.needs_grad(g.param(f).id));
  Var frozen_only = sum_all(g.param(f) * c);
  EXPECT_FALSE(g.needs_grad(frozen_only.id));
  EXPECT_NO_THROW(g.backward(frozen_only));   // nothing trainable upstream: a no-op
  g.backward(sum_all(g.param(f) * g.param(w)));
  EXPECT_EQ(w.grad, Mat::Constant(2, 2, 3));
  EXPECT_EQ(f.grad, Mat::Zero(2, 2));
  g.clear();
  EXPECT_EQ(g.size(), 0u);
}

}  // namespace twin
