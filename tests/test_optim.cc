// Optimisers and clipping (schedules: test_schedule.cc). Every expected number is computed here, independently, from the
// rule's scalar formula in double (or written out literally), never by calling the code under test.
#include <gtest/gtest.h>

#include "base/json_reader.h"
#include "optim/optim_config.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/check.h"
#include "optim/clip.h"
#include "optim/optimizer.h"
#include "test_util.h"

namespace twin {
namespace {

using test::contains;
using test::error_of;

using Vals = std::vector<double>;  // 2x3, row-major
const Vals kW0 = {0.5, -1.0, 2.0, 1.5, 0.25, -0.75};
const Vals kG1 = {0.1, -0.2, 0.3, -0.4, 0.5, 0.6};
const Vals kG2 = {0.2, 0.1, -0.3, 0.05, -0.5, 0.4};
const Vals kG3 = {-0.3, 0.25, 0.1, 0.2, 0.15, -0.05};

Mat to_mat(const Vals& v, Index rows = 2, Index cols = 3) {
  Mat m(rows, cols);
  for (Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<Real>(v[static_cast<size_t>(i)]);
  return m;
}

Param& add_param(ParamStore& s, const std::string& name, const Vals& w) {
  Param& p = s.add(name, 2, 3, nullptr);
  p.value = to_mat(w);
  return p;
}

void expect_mat_near(const Mat& got, const Vals& want, double tol, const char* what) {
  for (Index i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got.data()[i], want[static_cast<size_t>(i)], tol) << what << " element " << i;
}

OptimConfig optim(const std::string& name) {
  OptimConfig c;
  c.name = *value_of(kOptimNames, name);
  return c;
}

// Runs `cfg` on a fresh 2x3 param for the given gradients, returning the values after each step.
std::vector<Mat> run_steps(const OptimConfig& cfg, const std::vector<Vals>& grads, double lr) {
  ParamStore s;
  Param& p = add_param(s, "w", kW0);
  auto opt = make_optimizer(cfg);
  std::vector<Mat> out;
  for (const Vals& g : grads) {
    p.grad = to_mat(g);
    p.mark_all();
    opt->step(s, static_cast<Real>(lr));
    out.push_back(p.value);
  }
  return out;
}

// ---------------------------------------------------------------- update rules

TEST(Optim, SgdOneAndTwoSteps) {
  const auto w = run_steps(optim("sgd"), {kG1, kG2}, 0.7);
  Vals w1(6), w2(6);
  for (size_t i = 0; i < 6; ++i) {
    w1[i] = kW0[i] - 0.7 * kG1[i];
    w2[i] = w1[i] - 0.7 * kG2[i];
  }
  expect_mat_near(w[0], w1, 2e-6, "step 1");
  expect_mat_near(w[1], w2, 2e-6, "step 2");
}

TEST(Optim, SgdMomentum) {
  OptimConfig c = optim("sgd");
  c.momentum = 0.9;
  const auto w = run_steps(c, {kG1, kG2, kG3}, 0.5);
  Vals v(6, 0.0), x = kW0;
  const std::vector<Vals> gs = {kG1, kG2, kG3};
  for (size_t t = 0; t < 3; ++t) {
    for (size_t i = 0; i < 6; ++i) {
      v[i] = 0.9 * v[i] + gs[t][i];
      x[i] -= 0.5 * v[i];
    }
    expect_mat_near(w[t], x, 2e-6, "momentum step");
  }
  // Step 2 differs from plain SGD by lr·μ·g1.
  EXPECT_NEAR(w[1](0, 0), 0.5 - 0.5 * 0.1 - 0.5 * (0.9 * 0.1 + 0.2), 2e-6);
}

TEST(Optim, AdamOneAndTwoSteps) {
  OptimConfig c = optim("adam");
  c.beta1 = 0.8;
  c.beta2 = 0.95;
  c.eps = 1e-3;  // large enough to matter in the assertion
  const auto w = run_steps(c, {kG1, kG2}, 0.01);
  Vals m(6, 0.0), v(6, 0.0), x = kW0;
  const std::vector<Vals> gs = {kG1, kG2};
  for (int t = 1; t <= 2; ++t) {
    for (size_t i = 0; i < 6; ++i) {
      const double g = gs[static_cast<size_t>(t - 1)][i];
      m[i] = 0.8 * m[i] + 0.2 * g;
      v[i] = 0.95 * v[i] + 0.05 * g * g;
      const double mh = m[i] / (1 - std::pow(0.8, t)), vh = v[i] / (1 - std::pow(0.95, t));
      x[i] -= 0.01 * mh / (std::sqrt(vh) + 1e-3);
    }
    expect_mat_near(w[static_cast<size_t>(t - 1)], x, 1e-6, "adam step");
  }
  // First step: m̂/√v̂ = sign(g), so the move is lr·|g|/(|g|+ε).
  EXPECT_NEAR(w[0](0, 0), 0.5 - 0.01 * 0.1 / (0.1 + 1e-3), 1e-6);
}

TEST(Optim, AdagradOneAndTwoSteps) {
  OptimConfig c = optim("adagrad");
  c.initial_accumulator = 0.1;
  c.eps = 1e-4;
  const auto w = run_steps(c, {kG1, kG2}, 0.3);
  Vals s(6, 0.1), x = kW0;
  const std::vector<Vals> gs = {kG1, kG2};
  for (size_t t = 0; t < 2; ++t) {
    for (size_t i = 0; i < 6; ++i) {
      s[i] += gs[t][i] * gs[t][i];
      x[i] -= 0.3 * gs[t][i] / (std::sqrt(s[i]) + 1e-4);
    }
    expect_mat_near(w[t], x, 2e-6, "adagrad step");
  }
}

TEST(Optim, AdadeltaOneAndTwoSteps) {
  OptimConfig c = optim("adadelta");
  c.rho = 0.9;
  c.eps = 1e-6;
  const auto w = run_steps(c, {kG1, kG2}, 1.0);
  Vals eg(6, 0.0), ed(6, 0.0), x = kW0;
  const std::vector<Vals> gs = {kG1, kG2};
  for (size_t t = 0; t < 2; ++t) {
    for (size_t i = 0; i < 6; ++i) {
      const double g = gs[t][i];
      eg[i] = 0.9 * eg[i] + 0.1 * g * g;
      const double d = std::sqrt(ed[i] + 1e-6) / std::sqrt(eg[i] + 1e-6) * g;
      ed[i] = 0.9 * ed[i] + 0.1 * d * d;
      x[i] -= 1.0 * d;
    }
    expect_mat_near(w[t], x, 1e-6, "adadelta step");
  }
  // lr multiplies the update (PyTorch): lr 0.5 moves exactly half as far on the first step.
  const auto half = run_steps(c, {kG1}, 0.5);
  EXPECT_NEAR(kW0[0] - half[0](0, 0), 0.5 * (kW0[0] - w[0](0, 0)), 1e-7);
}

TEST(Optim, WeightDecayIsAddedToTheGradient) {
  OptimConfig c = optim("sgd");
  c.weight_decay = 0.1;
  const auto w = run_steps(c, {kG1, kG2}, 0.5);
  Vals x = kW0;
  for (const Vals& g : {kG1, kG2})
    for (size_t i = 0; i < 6; ++i) x[i] -= 0.5 * (g[i] + 0.1 * x[i]);
  expect_mat_near(w[1], x, 2e-6, "sgd + wd");

  c = optim("adam");
  c.weight_decay = 0.5;
  const auto a = run_steps(c, {kG1}, 0.01);
  for (size_t i = 0; i < 6; ++i) {  // one Adam step moves by lr·g'/(|g'|+ε), g' = g + wd·w
    const double g = kG1[i] + 0.5 * kW0[i];
    EXPECT_NEAR(a[0].data()[i], kW0[i] - 0.01 * g / (std::abs(g) + 1e-8), 1e-6) << i;
  }
}

// Param::max_abs (IndRNN's recurrent-weight bound): after the update, each entry is clipped into [-max_abs, max_abs];
// entries inside the box get the plain update.
TEST(Optim, MaxAbsProjectsAfterTheUpdate) {
  for (const char* rule : {"sgd", "adam"}) {
    ParamStore s;
    Param& p = add_param(s, "u", kW0);   // 0.5, -1.0, 2.0, 1.5, 0.25, -0.75
    p.max_abs = Real(0.9);
    Param& free = add_param(s, "w", kW0);
    auto opt = make_optimizer(optim(rule));
    for (Param* q : {&p, &free}) {
      q->grad = to_mat(kG1);   // 0.1, -0.2, 0.3, -0.4, 0.5, 0.6
      q->mark_all();
    }
    opt->step(s, Real(0.1));
    for (Index i = 0; i < 6; ++i) {
      const double plain = free.value.data()[i];
      EXPECT_NEAR(p.value.data()[i], std::clamp(plain, -0.9, 0.9), 1e-7) << rule << " element " << i;
    }
    EXPECT_EQ(p.value(0, 2), Real(0.9)) << rule;   // 2.0 and 1.5 moved by at most 0.1: clipped to the bound
    EXPECT_EQ(p.value(1, 0), Real(0.9)) << rule;
    EXPECT_GE(p.value.minCoeff(), Real(-0.9)) << rule;   // -1.0 moved up by about 0.1 at most: at or inside the box
    EXPECT_GT(free.value.maxCoeff(), Real(1.8)) << rule;  // without max_abs nothing is clipped
  }
}

TEST(Optim, FrozenParamsAreNotUpdatedAndHaveNoState) {
  for (const char* name : {"sgd", "adam", "adagrad", "adadelta"}) {
    OptimConfig c = optim(name);
    c.weight_decay = 0.1;
    c.momentum = 0.5;
    ParamStore s;
    Param& frozen = add_param(s, "frozen", kW0);
    Param& w = add_param(s, "w", kW0);
    frozen.trainable = false;
    frozen.grad = to_mat(kG1);
    w.grad = to_mat(kG1);
    auto opt = make_optimizer(c);
    opt->step(s, 0.5f);
    opt->step(s, 0.5f);
    EXPECT_TRUE(frozen.value == to_mat(kW0)) << name;
    EXPECT_TRUE(frozen.grad == to_mat(kG1)) << name << ": gradients are read, not modified";
    EXPECT_FALSE(w.value == to_mat(kW0)) << name;
    for (const auto& [n, m] : opt->state()) EXPECT_FALSE(contains(n, "frozen")) << name << ": " << n;
  }
}

// Two stores with the same gradient; in `sparse` only rows {0, 2} of the 4x3 param are marked touched.
void sparse_vs_dense(const OptimConfig& c, Mat* sparse_out, Mat* dense_out, bool sentinel) {
  for (int mode = 0; mode < 2; ++mode) {
    ParamStore s;
    Param& p = s.add("emb", 4, 3, nullptr);
    p.value = to_mat({0.5, -1.0, 2.0, 1.5, 0.25, -0.75, 0.1, 0.2, 0.3, -0.4, -0.5, 0.6}, 4, 3);
    auto opt = make_optimizer(c);
    for (int t = 0; t < 2; ++t) {
      p.grad.setZero();
      p.touched.clear();
      p.all_touched = false;
      p.grad.row(0) = to_mat(kG1, 1, 3) * static_cast<Real>(t + 1);
      p.grad.row(2) = to_mat(kG2, 1, 3);
      if (sentinel && mode == 0) p.grad(1, 1) = 100;  // breaks the contract on purpose: shows which rows run
      if (mode == 0) {
        p.mark_row(0);
        p.mark_row(2);
      } else {
        p.mark_all();
      }
      opt->step(s, 0.5f);
    }
    *(mode == 0 ? sparse_out : dense_out) = p.value;
  }
}

// Mathematically equal; a row-by-row loop may round differently from the whole-matrix kernel (vector vs
// scalar code, FMA contraction), so equality is up to a few float ulps.
void expect_same(const Mat& a, const Mat& b, const char* what) {
  EXPECT_LE((a - b).cwiseAbs().maxCoeff(), 1e-6) << what;
}

TEST(Optim, SparseRowsEqualDenseUpdate) {
  for (const char* name : {"sgd", "adagrad", "adam", "adadelta"}) {
    Mat sp, de;
    sparse_vs_dense(optim(name), &sp, &de, false);
    expect_same(sp, de, name);
  }
  // SGD and Adagrad really take the touched-rows path: a (contract-breaking) gradient on row 1 is ignored.
  for (const char* name : {"sgd", "adagrad"}) {
    Mat sp, de;
    sparse_vs_dense(optim(name), &sp, &de, true);
    expect_same(sp, de, name);
  }
  // With momentum the update is dense: row 1 (never touched) is moved by the sentinel's velocity.
  OptimConfig m = optim("sgd");
  m.momentum = 0.9;
  Mat sp, de;
  sparse_vs_dense(m, &sp, &de, true);
  EXPECT_NEAR(sp(1, 1), 0.25 - 0.5 * 100 - 0.5 * (0.9 * 100 + 100), 1e-3);
}

TEST(Optim, AdamIsExactNotLazyOnSparseRows) {
  // Row 1 is touched at step 1 only; at step 2 its m is nonzero, so dense Adam still moves it.
  ParamStore s;
  Param& p = add_param(s, "emb", kW0);
  auto opt = make_optimizer(optim("adam"));
  p.grad = to_mat(kG1);
  p.mark_all();
  opt->step(s, 0.1f);
  const Mat after1 = p.value;
  p.grad.setZero();
  p.grad.row(0) = to_mat(kG2, 1, 3);
  p.touched.clear();
  p.all_touched = false;
  p.mark_row(0);
  opt->step(s, 0.1f);
  for (Index j = 0; j < 3; ++j) {
    const double g = kG1[static_cast<size_t>(3 + j)];
    const double m = 0.9 * 0.1 * g, v = 0.999 * 0.001 * g * g;
    const double want = after1(1, j) - 0.1 * (m / (1 - 0.81)) / (std::sqrt(v / (1 - 0.999 * 0.999)) + 1e-8);
    EXPECT_NEAR(p.value(1, j), want, 1e-6) << j;
  }
}

// ---------------------------------------------------------------- checkpoint state

TEST(Optim, StateRoundTripContinuesExactly) {
  OptimConfig sgdm = optim("sgd");
  sgdm.momentum = 0.9;
  OptimConfig adagrad = optim("adagrad");
  adagrad.initial_accumulator = 0.1;
  for (const OptimConfig& c : {sgdm, optim("adam"), adagrad, optim("adadelta"), optim("sgd")}) {
    ParamStore sa;
    Param& a1 = add_param(sa, "enc/w", kW0);
    Param& a2 = add_param(sa, "dec/w", kG3);
    auto A = make_optimizer(c);
    const std::vector<Vals> gs = {kG1, kG2, kG3};
    NamedMats saved;
    Mat a1_at2, a2_at2;
    for (size_t t = 0; t < 3; ++t) {
      if (t == 2) {
        saved = A->state();
        a1_at2 = a1.value;
        a2_at2 = a2.value;
      }
      a1.grad = to_mat(gs[t]);
      a2.grad = to_mat(gs[2 - t]);
      A->step(sa, 0.05f);
    }
    ParamStore sb;
    Param& b1 = add_param(sb, "enc/w", kW0);
    Param& b2 = add_param(sb, "dec/w", kW0);
    b1.value = a1_at2;
    b2.value = a2_at2;
    auto B = make_optimizer(c);
    B->init(sb);
    B->load_state(saved);
    EXPECT_EQ(B->step_count(), 2) << name_of(kOptimNames, c.name);
    b1.grad = to_mat(kG3);
    b2.grad = to_mat(kG1);
    B->step(sb, 0.05f);
    EXPECT_TRUE(b1.value == a1.value) << name_of(kOptimNames, c.name);
    EXPECT_TRUE(b2.value == a2.value) << name_of(kOptimNames, c.name);
    EXPECT_EQ(B->step_count(), 3) << name_of(kOptimNames, c.name);
  }
}

TEST(Optim, StateNamesAreStable) {
  ParamStore s;
  add_param(s, "enc/w", kW0).grad.setOnes();
  add_param(s, "dec/w", kW0).grad.setOnes();
  auto opt = make_optimizer(optim("adam"));
  for (int t = 0; t < 3; ++t) opt->step(s, 0.1f);
  const NamedMats st = opt->state();
  const std::vector<std::string> want = {"adam/step", "adam/m/enc/w", "adam/v/enc/w", "adam/m/dec/w",
                                         "adam/v/dec/w"};
  ASSERT_EQ(st.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(st[i].first, want[i]);
  EXPECT_EQ(st[0].second(0, 0), 0);
  EXPECT_EQ(st[0].second(0, 1), 3);
  EXPECT_NEAR(st[1].second(0, 0), 0.1 * (1 + 0.9 + 0.81), 1e-6);  // m after three unit gradients
}

TEST(Optim, LoadStateRejectsMismatches) {
  ParamStore s;
  add_param(s, "w", kW0).grad = to_mat(kG1);
  auto A = make_optimizer(optim("adam"));
  A->step(s, 0.1f);
  const NamedMats good = A->state();

  auto B = make_optimizer(optim("adam"));
  EXPECT_TRUE(contains(error_of([&] { B->load_state(good); }), "init(store)"));
  B->init(s);
  NamedMats bad = good;
  bad[2].second = Mat::Zero(3, 2);
  std::string e = error_of([&] { B->load_state(bad); });
  EXPECT_TRUE(contains(e, "'adam/v/w'") && contains(e, "[3x2]") && contains(e, "[2x3]")) << e;
  bad = good;
  bad[1].first = "adam/m/other";
  e = error_of([&] { B->load_state(bad); });
  EXPECT_TRUE(contains(e, "missing entry 'adam/m/w'")) << e;
  bad = good;
  bad.emplace_back("adam/m/extra", Mat::Zero(2, 3));
  e = error_of([&] { B->load_state(bad); });
  EXPECT_TRUE(contains(e, "unexpected entry 'adam/m/extra'")) << e;
  auto S = make_optimizer(optim("sgd"));
  S->init(s);
  e = error_of([&] { S->load_state(good); });
  EXPECT_TRUE(contains(e, "missing entry 'sgd/step'")) << e;
  bad = good;
  bad[0].second(0, 1) = 1.5;
  e = error_of([&] { B->load_state(bad); });
  EXPECT_TRUE(contains(e, "adam/step")) << e;
  // Failed loads changed nothing; a good one works.
  EXPECT_EQ(B->step_count(), 0);
  B->load_state(good);
  EXPECT_EQ(B->step_count(), 1);
  EXPECT_TRUE(B->state()[2].second == good[2].second);
}

TEST(Optim, MakeOptimizerValidatesConfig) {
  // An unknown name cannot be built any more (OptimKind); the parser lists the allowed ones.
  nlohmann::json j = {{"name", "rmsprop"}};
  JsonReader r(j, "exp.json", "train.optim");
  std::string e = error_of([&] { parse_optim(r); });
  EXPECT_TRUE(contains(e, "\"rmsprop\"") && contains(e, "sgd") && contains(e, "adadelta")) << e;
  OptimConfig c = optim("adam");
  c.beta1 = 1.5;
  e = error_of([&] { make_optimizer(c); });
  EXPECT_TRUE(contains(e, "optim.beta1")) << e;
  c = optim("sgd");
  c.lr = 0;
  EXPECT_TRUE(contains(error_of([&] { make_optimizer(c); }), "optim.lr"));
  EXPECT_EQ(make_optimizer(optim("adadelta"))->name(), "adadelta");
}

// ---------------------------------------------------------------- clipping

TEST(Clip, GlobalNormClipsToMaxAndReturnsPreClipNorm) {
  ParamStore s;
  Param& a = add_param(s, "a", kW0);
  Param& b = add_param(s, "b", kW0);
  Param& frozen = add_param(s, "frozen", kW0);
  frozen.trainable = false;
  a.grad = to_mat(kG1);
  b.grad = to_mat(kG2);
  frozen.grad = to_mat(kG3);
  double sq = 0;
  for (size_t i = 0; i < 6; ++i) sq += kG1[i] * kG1[i] + kG2[i] * kG2[i];
  const double norm = std::sqrt(sq);
  EXPECT_NEAR(global_grad_norm(s), norm, 1e-6);

  EXPECT_NEAR(clip_global_norm(s, 5.0f), norm, 1e-6);  // below max: unchanged
  EXPECT_TRUE(a.grad == to_mat(kG1));
  EXPECT_NEAR(clip_global_norm(s, 0.0f), norm, 1e-6);  // off: unchanged
  EXPECT_TRUE(b.grad == to_mat(kG2));

  EXPECT_NEAR(clip_global_norm(s, 0.5f), norm, 1e-6);
  EXPECT_NEAR(global_grad_norm(s), 0.5, 1e-5);
  for (size_t i = 0; i < 6; ++i) EXPECT_NEAR(a.grad.data()[i], kG1[i] * 0.5 / norm, 1e-6);
  EXPECT_TRUE(frozen.grad == to_mat(kG3));
}

TEST(Clip, SparseRowsAndNonFiniteGradients) {
  ParamStore s;
  Param& e = add_param(s, "emb", kW0);
  e.grad = to_mat(kG1);
  e.grad(1, 0) = 100;  // untouched row: must not count (sentinel)
  e.mark_row(0);
  EXPECT_NEAR(global_grad_norm(s), std::sqrt(0.01 + 0.04 + 0.09), 1e-6);
  EXPECT_TRUE(grads_finite(s));

  e.mark_all();
  e.grad(0, 2) = std::numeric_limits<Real>::quiet_NaN();
  EXPECT_FALSE(grads_finite(s));
  e.grad(0, 2) = std::numeric_limits<Real>::infinity();
  EXPECT_FALSE(grads_finite(s));
  const Real n = clip_global_norm(s, 1.0f);
  EXPECT_FALSE(std::isfinite(n));
  EXPECT_EQ(e.grad(0, 0), static_cast<Real>(0.1));  // not scaled into NaN
}

}  // namespace
}  // namespace twin
