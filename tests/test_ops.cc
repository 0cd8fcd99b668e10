// Op tests beyond finite differences (float core). Gradient checks live in grad_ops_*.cc (double core).
//
// Checklist for adding an op (ggml style; DESIGN §3.3):
//   [ ] the function opens with its math and its backward formula;
//   [ ] backward accumulates (+=), skips inputs with !g.needs_grad(id), captures Vars/scalars, never Mat&;
//   [ ] shapes are checked at record time with TW_CHECK naming the op and both shapes -> a test below;
//   [ ] the name is in kAllOps (ops/op_names.h);
//   [ ] a GradCheck TEST in grad_ops_*.cc (relu/max-like ops: avoid_kinks_near);
//   [ ] a fused op: an equality test (values and gradients) against the composition it replaces
//       (grad_ops_fused.cc).
#include <gtest/gtest.h>

#include <tuple>

#include <cmath>
#include <string>

#include "graph/init.h"
#include "base/threads.h"
#include "base/gemm.h"
#include "base/gemm_blis.h"
#include "base/gemm_dnnl.h"
#include "ops/ops.h"

namespace twin {

namespace {

// Runs f, which must throw twin::Error whose message mentions `what` (the op name, usually).
template <typename F>
void expect_error(F&& f, const std::string& what) {
  try {
    f();
    ADD_FAILURE() << "expected twin::Error mentioning '" << what << "', nothing was thrown";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << "message: " << e.what();
  }
}

Mat randn(Index rows, Index cols, std::uint64_t seed) {
  Mat m(rows, cols);
  Rng rng(seed);
  rng.fill_normal(m, 0, 1);
  return m;
}

}  // namespace

// ---- shape and argument errors, per op family ----

TEST(OpErrors, Arith) {
  Graph g;
  Var a = g.constant(Mat::Ones(3, 4)), b = g.constant(Mat::Ones(4, 3)), s = g.constant(Mat::Ones(3, 1));
  expect_error([&] { a + b; }, "add");
  expect_error([&] { a - b; }, "sub");
  expect_error([&] { a * b; }, "mul");
  expect_error([&] { add_row(a, g.constant(Mat::Ones(1, 3))); }, "add_row");
  expect_error([&] { add_row(a, g.constant(Mat::Ones(2, 4))); }, "add_row");
  expect_error([&] { mul_col(a, g.constant(Mat::Ones(4, 1))); }, "mul_col");
  expect_error([&] { mul_col(a, a); }, "mul_col");
  expect_error([&] { add_tile_rows(g.constant(Mat::Ones(5, 4)), g.constant(Mat::Ones(2, 4))); }, "add_tile_rows");
  expect_error([&] { add_tile_rows(g.constant(Mat::Ones(6, 4)), g.constant(Mat::Ones(2, 3))); }, "add_tile_rows");
  expect_error([&] { mul_tile_rows(g.constant(Mat::Ones(5, 4)), g.constant(Mat::Ones(2, 4))); }, "mul_tile_rows");
  EXPECT_NO_THROW(mul_col(a, s));
}

TEST(OpErrors, Linalg) {
  Graph g;
  Var x = g.constant(Mat::Ones(3, 4));
  expect_error([&] { matmul(x, g.constant(Mat::Ones(3, 2))); }, "matmul");
  expect_error([&] { matmul_nt(x, g.constant(Mat::Ones(2, 3))); }, "matmul_nt");
  expect_error([&] { affine(x, g.constant(Mat::Ones(3, 2)), g.constant(Mat::Ones(1, 2))); }, "affine");
  expect_error([&] { affine(x, g.constant(Mat::Ones(4, 2)), g.constant(Mat::Ones(1, 3))); }, "affine");
  expect_error([&] { affine(x, g.constant(Mat::Ones(4, 2)), g.constant(Mat::Ones(3, 2))); }, "affine");
  Mat c(3, 2);
  expect_error([&] { gemm(Mat::Ones(3, 4), false, Mat::Ones(3, 2), false, c); }, "gemm");
  expect_error([&] { gemm(Mat::Ones(3, 4), false, Mat::Ones(4, 5), false, c); }, "gemm");
  EXPECT_NO_THROW(gemm(Mat::Ones(4, 3), true, Mat::Ones(2, 4), true, c));
}

TEST(OpErrors, LogOfNonPositive) {
  Graph g;
  Mat x = Mat::Ones(2, 2);
  x(1, 0) = 0;
  expect_error([&] { log(g.constant(x)); }, "log");
  x(1, 0) = -3;
  expect_error([&] { log(g.constant(x)); }, "log");
  x(1, 0) = std::nanf("");
  expect_error([&] { log(g.constant(x)); }, "log");
}

TEST(OpErrors, Shape) {
  Graph g;
  Var x = g.constant(Mat::Ones(3, 4));
  expect_error([&] { slice_rows(x, 2, 2); }, "slice_rows");
  expect_error([&] { slice_rows(x, -1, 1); }, "slice_rows");
  expect_error([&] { slice_rows(x, 0, -1); }, "slice_rows");
  expect_error([&] { slice_cols(x, 3, 2); }, "slice_cols");
  expect_error([&] { slice_cols(x, -1, 2); }, "slice_cols");
  expect_error([&] { concat_cols({x, g.constant(Mat::Ones(2, 4))}); }, "concat_cols");
  expect_error([&] { concat_cols({}); }, "concat_cols");
  expect_error([&] { stack_rows({x, g.constant(Mat::Ones(3, 3))}); }, "stack_rows");
  expect_error([&] { stack_rows({}); }, "stack_rows");
  expect_error([&] { select_rows(x, {0, 3}); }, "select_rows");
  expect_error([&] { select_rows(x, {-1}); }, "select_rows");
  expect_error([&] { reshape(x, 5, 2); }, "reshape");
  EXPECT_NO_THROW(slice_rows(x, 3, 0));   // an empty slice at the end is legal
  EXPECT_NO_THROW(reshape(x, 6, 2));
}

TEST(OpErrors, Reduce) {
  Graph g;
  Var x = g.constant(Mat::Ones(6, 2));
  expect_error([&] { mean_rows_masked(x, Mat::Ones(6, 1), 4); }, "mean_rows_masked");
  expect_error([&] { mean_rows_masked(x, Mat::Ones(6, 1), 0); }, "mean_rows_masked");
  expect_error([&] { mean_rows_masked(x, Mat::Ones(5, 1), 2); }, "mean_rows_masked");
  expect_error([&] { max_over_time(x, Mat::Ones(6, 2), 2); }, "max_over_time");
  expect_error([&] { max_over_time(x, Mat::Ones(6, 1), 5); }, "max_over_time");
}

TEST(OpErrors, EmbedSoftmaxLoss) {
  Graph g;
  Var table = g.constant(Mat::Ones(5, 2));
  expect_error([&] { lookup(table, {0, 5}); }, "lookup");
  expect_error([&] { lookup(table, {-1}); }, "lookup");
  Var x = g.constant(Mat::Ones(3, 4));
  expect_error([&] { masked_softmax_rows(x, Mat::Ones(3, 3)); }, "masked_softmax_rows");
  expect_error([&] { cross_entropy(x, {0, 1, 4}, Mat()); }, "cross_entropy");
  expect_error([&] { cross_entropy(x, {0, -1, 2}, Mat()); }, "cross_entropy");
  expect_error([&] { cross_entropy(x, {0, 1}, Mat()); }, "cross_entropy");
  expect_error([&] { cross_entropy(x, {0, 1, 2}, Mat::Ones(2, 1)); }, "cross_entropy");
  expect_error([&] { cross_entropy_rows(x, {0, 1, 4}); }, "cross_entropy_rows");
  expect_error([&] { cross_entropy_rows(x, {0, 1, 2, 3}); }, "cross_entropy_rows");
  expect_error([&] { pick(x, {0, 4, 1}); }, "pick");
  expect_error([&] { pick(x, {0, -2, 1}); }, "pick");
  expect_error([&] { pick(x, {0}); }, "pick");
}

TEST(OpErrors, DropoutProbability) {
  Graph g;
  Rng rng(1);
  Var x = g.constant(Mat::Ones(2, 3));
  for (Real p : {Real(1), Real(-0.1), Real(1.5)}) {
    expect_error([&] { dropout(x, p, rng); }, "dropout");
    expect_error([&] { dropout_mask(rng, 2, 3, p); }, "dropout");
  }
  Graph infer(Mode::kInfer);   // a bad p is a config error even where dropout is the identity
  expect_error([&] { dropout(infer.constant(Mat::Ones(2, 3)), 1, rng); }, "dropout");
}

TEST(OpErrors, LayerNormAndFused) {
  Graph g;
  Var x = g.constant(Mat::Ones(3, 4));
  expect_error([&] { layer_norm(x, g.constant(Mat::Ones(1, 3)), g.constant(Mat::Zero(1, 4))); }, "layer_norm");
  expect_error([&] { layer_norm(x, g.constant(Mat::Ones(1, 4)), g.constant(Mat::Zero(4, 1))); }, "layer_norm");
  Var m = g.constant(Mat::Ones(3, 1));
  expect_error([&] { mask_carry(x, g.constant(Mat::Ones(3, 3)), m); }, "mask_carry");
  expect_error([&] { mask_carry(x, x, g.constant(Mat::Ones(2, 1))); }, "mask_carry");
  ParamStore store;
  Param& pm = store.add("m", 3, 1, init::constant(1));
  expect_error([&] { mask_carry(x, x, g.param(pm)); }, "mask_carry");   // a trainable mask is a bug
  expect_error([&] { weighted_sum_steps(g.constant(Mat::Ones(2, 3)), g.constant(Mat::Ones(5, 4))); },
               "weighted_sum_steps");
}

// ---- masked attention: padded positions get exactly zero weight and exactly zero gradient ----

TEST(OpMasked, MaskedSoftmaxExactZeros) {
  ParamStore store;
  Param& p = store.add("scores", 3, 5, [](Mat& m, Rng& r) { r.fill_normal(m, 0, 3); });
  p.value(0, 1) = 50;   // a huge masked logit must not leak into the kept ones
  Mat mask(3, 5);
  mask << 1, 0, 1, 1, 0,
      0, 0, 0, 0, 0,   // fully masked row: all zeros, not NaN
      0, 0, 0, 1, 0;
  Graph g;
  Var y = masked_softmax_rows(g.param(p), mask);
  const Mat& v = y.val();
  ASSERT_TRUE(v.allFinite());
  for (Index r = 0; r < 3; ++r)
    for (Index c = 0; c < 5; ++c)
      if (mask(r, c) == 0) {
        EXPECT_EQ(v(r, c), 0.0f) << r << "," << c;
      }
  EXPECT_NEAR(v.row(0).sum(), 1, 1e-6);
  EXPECT_EQ(v(2, 3), 1.0f);
  // Kept entries equal the plain softmax over the kept logits only.
  Mat kept(1, 3);
  kept << p.value(0, 0), p.value(0, 2), p.value(0, 3);
  const Mat ref = softmax_rows(kept);
  EXPECT_NEAR(v(0, 0), ref(0, 0), 1e-6);
  EXPECT_NEAR(v(0, 2), ref(0, 1), 1e-6);
  EXPECT_NEAR(v(0, 3), ref(0, 2), 1e-6);

  g.backward(sum_all(y * g.constant(randn(3, 5, 3))));
  for (Index r = 0; r < 3; ++r)
    for (Index c = 0; c < 5; ++c)
      if (mask(r, c) == 0) {
        EXPECT_EQ(p.grad(r, c), 0.0f) << "gradient leaks into masked logit " << r << "," << c;
      }
  EXPECT_GT(p.grad.row(0).cwiseAbs().maxCoeff(), 0);
}

TEST(OpMasked, ReductionsIgnorePaddedSteps) {
  // T=2, B=2, lengths {2, 1}: sequence 1's padded step holds a huge value that must be ignored.
  Mat x(4, 1);
  x << 1, 2,     // t=0
      3, 100;    // t=1 (row 3 is padding)
  Mat mask(4, 1);
  mask << 1, 1, 1, 0;
  Graph g;
  Var xv = g.constant(x);
  EXPECT_EQ(max_over_time(xv, mask, 2).val()(1, 0), 2);
  EXPECT_EQ(max_over_time(xv, mask, 2).val()(0, 0), 3);
  EXPECT_EQ(mean_rows_masked(xv, mask, 2).val()(1, 0), 2);
  EXPECT_EQ(mean_rows_masked(xv, mask, 2).val()(0, 0), 2);
  const Mat none = Mat::Zero(4, 1);   // an empty batch averages (and maxes) to 0, never NaN
  EXPECT_EQ(mean_rows_masked(xv, none, 2).val(), Mat::Zero(2, 1));
  EXPECT_EQ(max_over_time(xv, none, 2).val(), Mat::Zero(2, 1));
}

// ---- gemm routing: the BLAS path and the Eigen path agree ----

namespace {
Mat reference_gemm(const Mat& a, bool ta, const Mat& b, bool tb, const Mat& c0, double alpha, double beta) {
  using MatD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  MatD ad = a.cast<double>(), bd = b.cast<double>();
  if (ta) ad.transposeInPlace();
  if (tb) bd.transposeInPlace();
  MatD r = alpha * (ad * bd);
  if (beta != 0) r += beta * c0.cast<double>();
  return r.cast<Real>();
}

using GemmFn = void (*)(const Mat&, bool, const Mat&, bool, Mat&, Real, Real);

// Every transpose and beta of one product shape through `fn`, against the double reference.
void check_gemm_modes(GemmFn fn, Index m, Index n, Index k, double tol) {
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (double beta : {0.0, 1.0}) {
        const Mat a = ta ? randn(k, m, 1) : randn(m, k, 1);
        const Mat b = tb ? randn(n, k, 2) : randn(k, n, 2);
        const Mat c0 = randn(m, n, 3);
        Mat c = beta == 0 ? Mat::Constant(m, n, std::nanf("")) : c0;   // beta 0 must never read C
        fn(a, ta, b, tb, c, Real(0.5), static_cast<Real>(beta));
        const Mat ref = reference_gemm(a, ta, b, tb, c0, 0.5, beta);
        ASSERT_TRUE(c.allFinite()) << m << "x" << n << "x" << k << " ta=" << ta << " tb=" << tb << " beta=" << beta;
        EXPECT_LE((c - ref).cwiseAbs().maxCoeff(), tol)
            << m << "x" << n << "x" << k << " ta=" << ta << " tb=" << tb << " beta=" << beta;
      }
}

// Every library the build has, trusted, whatever this machine's probe says (gemm.h, GemmBackends): so that the
// BLAS and BLIS paths are checked here even on a machine where gemm() would not route to them. With `dnnl`,
// oneDNN too: it then takes every product from kDnnlMinWork multiply-adds, the others keep the smaller ones.
struct AllGemmBackends {
  GemmBackends saved = gemm_backends();
  explicit AllGemmBackends(bool dnnl) { set_gemm_backends(GemmBackends{blis_available(), true, dnnl}); }
  ~AllGemmBackends() { set_gemm_backends(saved); }
};

void check_gemm_all_modes(bool dnnl, Index m, Index n, Index k, GemmRoute expect, double tol) {
  const AllGemmBackends all(dnnl);
  ASSERT_STREQ(gemm_route_name(gemm_route(m, n, k)), gemm_route_name(expect))
      << "test shape no longer exercises the intended path";
  check_gemm_modes(&gemm, m, n, k, tol);
}
}  // namespace

// The product tests run twice: on the libraries without oneDNN ("Libraries") and with it ("Dnnl", skipped in a
// build without oneDNN), where the shapes above kDnnlMinWork go to oneDNN instead.
class GemmPath : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (dnnl() && !dnnl_available()) GTEST_SKIP() << "this build has no oneDNN (libdnnl-dev not installed)";
  }
  bool dnnl() const { return GetParam(); }
  GemmRoute or_dnnl(GemmRoute without) const { return dnnl() ? GemmRoute::kDnnl : without; }
};
INSTANTIATE_TEST_SUITE_P(Gemm, GemmPath, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& p) { return p.param ? "Dnnl" : "Libraries"; });

TEST_P(GemmPath, BlasPathMatchesReference) {
  // Distinct m, n, k so a swapped leading dimension cannot go unnoticed.
  check_gemm_all_modes(dnnl(), /*m=*/170, /*n=*/150, /*k=*/190, or_dnnl(GemmRoute::kBlas), 2e-4);
}

TEST_P(GemmPath, EigenPathMatchesReference) {
  // 18,200 multiply-adds: Eigen's, with oneDNN or without.
  check_gemm_all_modes(dnnl(), /*m=*/20, /*n=*/7, /*k=*/130, GemmRoute::kEigen, 1e-4);
}

// The thin products' BLIS path (row-major strides into BLIS's typed API), and oneDNN's for the same shape, on
// one and two threads.
TEST_P(GemmPath, BlisPathMatchesReference) {
  if (!blis_available()) GTEST_SKIP() << "this build has no BLIS (libblis-openmp-dev not installed)";
  const int saved = num_threads();
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    check_gemm_all_modes(dnnl(), /*m=*/20, /*n=*/301, /*k=*/200, or_dnnl(GemmRoute::kBlis), 2e-6 * 200);
    // any shape works when called directly
    check_gemm_modes(dnnl() ? &gemm_dnnl : &gemm_blis, /*m=*/3, /*n=*/17, /*k=*/5, 1e-5);
  }
  set_num_threads(saved);
}

// gemm()'s Eigen path split over two threads by output columns, including a narrow output (n < 64: one
// block) and a ragged split (n = 301), every transpose and beta: equal to the double-precision reference. The
// same shapes through oneDNN directly in the Dnnl run.
TEST_P(GemmPath, EigenSplitPathMatchesReference) {
  const int saved = num_threads();
  set_num_threads(2);
  for (const auto& [m, n, k] : {std::tuple<Index, Index, Index>{20, 301, 200}, {20, 40, 2000}, {3, 130, 4000}})
    check_gemm_modes(dnnl() ? &gemm_dnnl : &gemm_eigen, m, n, k, 2e-6 * static_cast<double>(k));
  set_num_threads(saved);
}

TEST_P(GemmPath, MatmulOpSameOnBothPaths) {
  // The same product computed by matmul (large: BLAS, or oneDNN) and row block by row block (thin: BLIS or
  // Eigen, below oneDNN's threshold).
  const AllGemmBackends all(dnnl());
  const Mat x = randn(512, 96, 4), w = randn(96, 88, 5);
  ASSERT_EQ(gemm_route(512, 88, 96), or_dnnl(GemmRoute::kBlas));
  ASSERT_NE(gemm_route(16, 88, 96), gemm_route(512, 88, 96));
  Graph g;
  const Mat big = matmul(g.constant(x), g.constant(w)).val();
  for (Index r0 = 0; r0 < 512; r0 += 16) {
    const Mat part = matmul(g.constant(x.middleRows(r0, 16)), g.constant(w)).val();
    EXPECT_LE((big.middleRows(r0, 16) - part).cwiseAbs().maxCoeff(), 1e-4) << "rows " << r0;
  }
}

// ---- accumulation across graphs ----

TEST(OpAccumulate, TwoGraphsSumIntoParamGrad) {
  ParamStore store;
  Param& w = store.add("W", 3, 2, [](Mat& m, Rng& r) { r.fill_normal(m, 0, 1); });
  Param& e = store.add("E", 4, 2, [](Mat& m, Rng& r) { r.fill_normal(m, 0, 1); });
  const Mat x1 = randn(4, 3, 10), x2 = randn(2, 3, 11), r1 = randn(4, 2, 12), r2 = randn(2, 2, 13);
  {
    Graph g;
    g.backward(sum_all(matmul(g.constant(x1), g.param(w)) * g.constant(r1)));
  }
  const Mat after_one = w.grad;
  {
    Graph g;
    g.backward(sum_all((matmul(g.constant(x2), g.param(w)) + lookup(g.param(e), {1, 3})) * g.constant(r2)));
  }
  const Mat expected = x1.transpose() * r1 + x2.transpose() * r2;
  EXPECT_LE((after_one - x1.transpose() * r1).cwiseAbs().maxCoeff(), 1e-5);
  EXPECT_LE((w.grad - expected).cwiseAbs().maxCoeff(), 1e-5);
  {
    Graph g;   // the sparse path accumulates too
    g.backward(sum_all(lookup(g.param(e), {3}) * g.constant(r2.row(0))));
  }
  EXPECT_LE((Mat(e.grad.row(3)) - (r2.row(1) + r2.row(0))).cwiseAbs().maxCoeff(), 1e-6);
  EXPECT_LE((Mat(e.grad.row(1)) - r2.row(0)).cwiseAbs().maxCoeff(), 1e-6);
  EXPECT_EQ(e.grad.row(0).cwiseAbs().maxCoeff(), 0);
  EXPECT_FALSE(e.all_touched);
}

// ---- forward semantics that a gradient check cannot see ----

TEST(OpForward, DropoutModes) {
  Graph g;
  Var x = g.constant(Mat::Ones(40, 50));
  Rng rng(5);
  EXPECT_EQ(dropout(x, 0, rng).id, x.id);   // p = 0: the identity, no node
  Graph infer(Mode::kInfer);
  Var xi = infer.constant(Mat::Ones(4, 5));
  EXPECT_EQ(dropout(xi, 0.5, rng).id, xi.id);   // inference: the identity
  const Mat y = dropout(x, 0.25, rng).val();
  Index zeros = 0;
  for (Index i = 0; i < y.size(); ++i) {
    const Real v = y.data()[i];
    EXPECT_TRUE(v == 0 || std::abs(v - Real(1) / Real(0.75)) < 1e-6) << v;
    zeros += v == 0;
  }
  EXPECT_GT(zeros, 2000 * 0.15);   // seeded, so not flaky: about 25% dropped
  EXPECT_LT(zeros, 2000 * 0.35);
  Rng a(9), b(9);
  EXPECT_EQ(dropout_mask(a, 3, 4, 0.5), dropout_mask(b, 3, 4, 0.5));
}

TEST(OpForward, StableSoftmaxAndLoss) {
  Mat x(2, 3);
  x << 1000, 0, -1000,
      -5e3, -5e3, -5e3;
  Graph g;
  Var xv = g.constant(x);
  const Mat p = softmax_rows(xv).val(), lp = log_softmax_rows(xv).val();
  ASSERT_TRUE(p.allFinite());
  ASSERT_TRUE(lp.allFinite());
  EXPECT_NEAR(p(0, 0), 1, 1e-6);
  EXPECT_NEAR(p(1, 2), 1.0 / 3, 1e-6);
  EXPECT_NEAR(lp(0, 1), -1000, 1e-3);
  const Mat ce = cross_entropy_rows(xv, {1, 0}).val();
  EXPECT_NEAR(ce(0, 0), 1000, 1e-3);
  EXPECT_NEAR(ce(1, 0), std::log(3.0), 1e-5);
}

TEST(OpForward, ReshapeIsRowMajorAndInferRecordsNoBackward) {
  Mat x(2, 3);
  x << 0, 1, 2, 3, 4, 5;
  Graph g(Mode::kInfer);
  const Mat r = reshape(g.constant(x), 3, 2).val();
  Mat expected(3, 2);
  expected << 0, 1, 2, 3, 4, 5;
  EXPECT_EQ(r, expected);
  EXPECT_EQ(transpose(g.constant(x)).val(), Mat(x.transpose()));
  ParamStore store;
  Param& w = store.add("W", 3, 2, init::constant(1));
  Var y = matmul(g.constant(x), g.param(w));
  EXPECT_FALSE(g.needs_grad(y.id));
}

}  // namespace twin

namespace twin {
namespace {

// Fused kernels equal their composed versions in float too (values and gradients).
TEST(OpFusedFloat, AtrUpdateEqualsComposed) {
  ParamStore store(5);
  auto rnd = [](Mat& m, Rng& r) { r.fill_uniform(m, -2, 2); };
  Param& p = store.add("p", 4, 6, rnd);
  Param& q = store.add("q", 4, 6, rnd);
  Param& h = store.add("h", 4, 6, rnd);
  Mat R(4, 6);
  Rng(9).fill_normal(R, 0, 1);
  auto run = [&](bool fused) {
    store.zero_grad();
    Graph g;
    Var pv = g.param(p), qv = g.param(q), hv = g.param(h);
    Var y = fused ? atr_update(pv, qv, hv) : sigmoid(pv + qv) * pv + sigmoid(pv - qv) * hv;
    Mat value = y.val();
    g.backward(sum_all(y * g.constant(R)));
    return std::vector<Mat>{value, p.grad, q.grad, h.grad};
  };
  const auto a = run(true), b = run(false);
  for (size_t k = 0; k < a.size(); ++k) EXPECT_LT((a[k] - b[k]).cwiseAbs().maxCoeff(), 1e-6) << "entry " << k;
}

}  // namespace
}  // namespace twin
