// The oneDNN paths (core/base/gemm_dnnl.h: dnnl_sgemm, gemm()'s route, and the matmul primitive) against a
// double-precision reference: every transpose, alpha and beta, odd shapes (one row, one column, depth 1, sizes
// off oneDNN's 16-float blocks), on one and two threads and inside a parallel region, with the inputs left
// untouched; and the matmul path's primitive cache.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <tuple>
#include <vector>

#include "base/check.h"
#include "base/gemm.h"
#include "base/gemm_dnnl.h"
#include "base/rng.h"
#include "base/threads.h"

namespace twin {
namespace {

using DnnlMatD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

Mat dnnl_random(Index r, Index c, std::uint64_t seed) {
  Rng rng(seed);
  Mat m(r, c);
  rng.fill_uniform(m, -1, 1);
  return m;
}

// beta C0 + alpha op(A) op(B) in double.
Mat dnnl_reference(const Mat& a, bool ta, const Mat& b, bool tb, const Mat& c0, double alpha, double beta) {
  DnnlMatD ad = a.cast<double>(), bd = b.cast<double>();
  if (ta) ad.transposeInPlace();
  if (tb) bd.transposeInPlace();
  DnnlMatD r = alpha * (ad * bd);
  if (beta != 0) r += beta * c0.cast<double>();
  return r.cast<Real>();
}

struct DnnlShape {
  Index m, n, k;
};

// m x n x k: one row, one column, depth 1, a single element, sizes that are no multiple of 16 (oneDNN's
// AVX-512 blocks) or of 8, and a thin recurrent-like product and a square one above the routing threshold.
const DnnlShape kDnnlShapes[] = {{1, 37, 23}, {29, 1, 31}, {17, 19, 1}, {1, 1, 1},    {1, 1, 300}, {33, 47, 65},
                         {20, 301, 200}, {3, 17, 5}, {64, 64, 64}, {130, 70, 257}};

using DnnlFn = void (*)(const Mat&, bool, const Mat&, bool, Mat&, Real, Real);

// Every transpose, alpha and beta of every shape through `gemm` on the current thread count.
void check_dnnl_all(DnnlFn gemm, const char* where) {
  for (const DnnlShape& s : kDnnlShapes)
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (double alpha : {1.0, 0.5, -2.0})
          for (double beta : {0.0, 1.0, 0.25}) {
            const Mat a = ta ? dnnl_random(s.k, s.m, 1) : dnnl_random(s.m, s.k, 1);
            const Mat b = tb ? dnnl_random(s.n, s.k, 2) : dnnl_random(s.k, s.n, 2);
            const Mat c0 = dnnl_random(s.m, s.n, 3);
            const Mat a_in = a, b_in = b;
            Mat c = beta == 0 ? Mat::Constant(s.m, s.n, std::nanf("")) : c0;   // beta 0 never reads C
            gemm(a, ta, b, tb, c, static_cast<Real>(alpha), static_cast<Real>(beta));
            const Mat ref = dnnl_reference(a, ta, b, tb, c0, alpha, beta);
            const std::string what = std::string(where) + " " + std::to_string(s.m) + "x" + std::to_string(s.n) +
                                     "x" + std::to_string(s.k) + " ta=" + std::to_string(ta) +
                                     " tb=" + std::to_string(tb) + " alpha=" + std::to_string(alpha) +
                                     " beta=" + std::to_string(beta);
            ASSERT_TRUE(c.allFinite()) << what;
            // float accumulation over k terms of magnitude <= 1, times |alpha| <= 2
            EXPECT_LE((c - ref).cwiseAbs().maxCoeff(), 4e-6 * static_cast<double>(s.k) + 1e-6) << what;
            // The operands are read only: bit for bit what they were.
            EXPECT_TRUE(a == a_in && b == b_in) << what;
          }
}

// Both ways into oneDNN: gemm_dnnl (dnnl_sgemm, gemm()'s route) and gemm_dnnl_matmul (the primitive).
class DnnlGemm : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (!dnnl_available()) GTEST_SKIP() << "this build has no oneDNN (libdnnl-dev not installed or TW_WITH_DNNL=OFF)";
  }
  int saved_threads = num_threads();
  void TearDown() override { set_num_threads(saved_threads); }
  DnnlFn fn() const { return GetParam() ? &gemm_dnnl_matmul : &gemm_dnnl; }
};
INSTANTIATE_TEST_SUITE_P(Dnnl, DnnlGemm, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& p) { return p.param ? "Matmul" : "Sgemm"; });

TEST_P(DnnlGemm, MatchesReferenceOnOneAndTwoThreads) {
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    check_dnnl_all(fn(), threads == 1 ? "1 thread" : "2 threads");
  }
}

// Products called from inside a parallel region, one per thread, each into its own C: oneDNN runs them on
// the calling thread (the matmul path with primitives made for 1 thread), and none disturbs another.
TEST_P(DnnlGemm, ConcurrentProductsInAParallelRegion) {
  set_num_threads(2);
  constexpr int kProducts = 8;
  std::vector<Mat> as, bs, cs(kProducts);
  for (int i = 0; i < kProducts; ++i) {
    as.push_back(dnnl_random(20, 130 + i, 10 + i));
    bs.push_back(dnnl_random(130 + i, 77, 20 + i));
    cs[i] = Mat::Constant(20, 77, std::nanf(""));
  }
  const DnnlFn gemm = fn();
#pragma omp parallel for num_threads(2) schedule(static, 1)
  for (int i = 0; i < kProducts; ++i) gemm(as[i], false, bs[i], false, cs[i], 1, 0);
  for (int i = 0; i < kProducts; ++i) {
    const Mat ref = dnnl_reference(as[i], false, bs[i], false, cs[i], 1, 0);
    ASSERT_TRUE(cs[i].allFinite()) << i;
    EXPECT_LE((cs[i] - ref).cwiseAbs().maxCoeff(), 1e-4) << i;
  }
}

// One primitive per shape, transposes, alpha != 1, beta != 0 and thread count: another alpha or beta of the
// same kind reuses it; a new thread count makes a new one (a primitive is made for the thread count it runs on).
TEST_P(DnnlGemm, CachesOnePrimitivePerShapeKind) {
  if (!GetParam()) GTEST_SKIP() << "dnnl_sgemm keeps no primitives";
  set_num_threads(1);
  const Mat a = dnnl_random(23, 41, 1), b = dnnl_random(41, 19, 2);
  Mat c = dnnl_random(23, 19, 3);
  gemm_dnnl_matmul(a, false, b, false, c, 1, 0);
  const std::size_t after_first = dnnl_cached_primitives();
  gemm_dnnl_matmul(a, false, b, false, c, 1, 0);
  EXPECT_EQ(dnnl_cached_primitives(), after_first);
  gemm_dnnl_matmul(a, false, b, false, c, 0.5, 0);   // alpha != 1: a new primitive ...
  gemm_dnnl_matmul(a, false, b, false, c, 3, 0);     // ... shared by every alpha != 1
  EXPECT_EQ(dnnl_cached_primitives(), after_first + 1);
  gemm_dnnl_matmul(a, false, b, false, c, 1, 1);     // beta != 0: a new one ...
  gemm_dnnl_matmul(a, false, b, false, c, 1, 0.5);   // ... shared by every beta != 0
  EXPECT_EQ(dnnl_cached_primitives(), after_first + 2);
  set_num_threads(2);
  gemm_dnnl_matmul(a, false, b, false, c, 1, 0);
  EXPECT_EQ(dnnl_cached_primitives(), after_first + 3);
}

// oneDNN runs on OpenMP's threads: with 2 threads a large product is faster than with 1 only if it uses both,
// which a loaded machine cannot show reliably; what can be checked is that oneDNN sees the thread count we set
// (it reads omp_get_max_threads) and that both counts give the reference.
TEST_P(DnnlGemm, FollowsOpenMPsThreadCount) {
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    EXPECT_EQ(omp_get_max_threads(), threads);
    const Mat a = dnnl_random(300, 200, 5), b = dnnl_random(200, 260, 6);
    Mat c(300, 260);
    fn()(a, false, b, false, c, 1, 0);
    EXPECT_LE((c - dnnl_reference(a, false, b, false, c, 1, 0)).cwiseAbs().maxCoeff(), 1e-3) << threads;
  }
}

// gemm()'s oneDNN route: the input-gradient form A B^T with a long inner dimension goes to the matmul
// primitive (a new cached primitive appears and the result is the reference's), every other form and a short
// or shallow one to dnnl_sgemm (no primitive made).
TEST(DnnlRoute, LongInputGradientFormRunsTheMatmulPrimitive) {
  static_assert(dnnl_matmul_takes(20, 2600, false, true));     // the medium LSTM's recurrent dx
  static_assert(dnnl_matmul_takes(16, 1024, false, true));     // both limits inclusive
  static_assert(!dnnl_matmul_takes(20, 1023, false, true));    // shallower
  static_assert(!dnnl_matmul_takes(10, 1024, false, true));    // the beam-10 step: dnnl_sgemm is faster there
  static_assert(!dnnl_matmul_takes(20, 2600, false, false));   // forward form
  static_assert(!dnnl_matmul_takes(2600, 20, true, false));    // weight-gradient form
  static_assert(!dnnl_matmul_takes(20, 2600, true, true));
  if (!dnnl_available() || !gemm_backends().dnnl) GTEST_SKIP() << "gemm() does not route to oneDNN here";
  const int saved = num_threads();
  set_num_threads(1);
  const Mat a = dnnl_random(20, 1100, 7), b = dnnl_random(90, 1100, 8);   // C = A B^T, 20 x 90, k = 1100
  ASSERT_EQ(gemm_route(20, 90, 1100), GemmRoute::kDnnl);
  Mat c(20, 90);
  const std::size_t before = dnnl_cached_primitives();
  gemm(a, false, b, true, c);
  EXPECT_EQ(dnnl_cached_primitives(), before + 1) << "the long A B^T did not run the matmul primitive";
  EXPECT_LE((c - dnnl_reference(a, false, b, true, c, 1, 0)).cwiseAbs().maxCoeff(), 4e-6 * 1100 + 1e-6);
  const Mat at = a.transpose();   // the same product as op(A) = A^T^T: weight-gradient-like form, dnnl_sgemm
  const Mat bt = b.transpose();
  gemm(a, false, bt, false, c);   // forward form, k = 1100
  gemm(at, true, b, true, c);     // both transposed
  EXPECT_EQ(dnnl_cached_primitives(), before + 1) << "a form other than A B^T made a primitive";
  set_num_threads(saved);
}

TEST(DnnlGemmAbsent, NamesWhatIsMissing) {
  if (dnnl_available()) {
    EXPECT_FALSE(dnnl_version().empty());
    EXPECT_FALSE(dnnl_isa().empty());
    GTEST_SKIP() << "this build has oneDNN " << dnnl_version() << " (" << dnnl_isa() << ")";
  }
  EXPECT_EQ(dnnl_isa(), "");
  EXPECT_FALSE(dnnl_isa_tuned());
  Mat a(2, 2), b(2, 2), c(2, 2);
  try {
    gemm_dnnl(a, false, b, false, c, 1, 0);
    FAIL() << "gemm_dnnl ran in a build without oneDNN";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("libdnnl-dev"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace twin
