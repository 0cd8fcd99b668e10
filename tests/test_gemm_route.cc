// gemm_route by hand (core/base/gemm.h): which library takes a product, for every combination of trusted
// libraries and thread counts, and the backends line of --version and the speed reports.
#include <gtest/gtest.h>

#include <string>

#include "base/gemm.h"
#include "base/gemm_blis.h"

namespace twin {
namespace {

constexpr GemmBackends kBoth{true, true}, kBlasOnly{false, true}, kBlisOnly{true, false}, kNeither{false, false};

TEST(GemmRoute, ThinProductsGoToBlisOnlyWhenItIsTrusted) {
  // 20 x 650 x 1950: a recurrent product of the 2 x 650 GRU LM (rows = batch), 2.5e7 multiply-adds.
  EXPECT_EQ(gemm_route(20, 1950, 650, kBoth, 1), GemmRoute::kBlis);
  EXPECT_EQ(gemm_route(20, 1950, 650, kBlisOnly, 2), GemmRoute::kBlis);
  // BLIS untrusted (its reference kernels): OpenBLAS on one thread, Eigen's column split on two.
  EXPECT_EQ(gemm_route(20, 1950, 650, kBlasOnly, 1), GemmRoute::kBlas);
  EXPECT_EQ(gemm_route(20, 1950, 650, kBlasOnly, 2), GemmRoute::kEigen);
  EXPECT_EQ(gemm_route(20, 1950, 650, kNeither, 1), GemmRoute::kEigen);
  // Below BLIS's minimum work (2^17 multiply-adds) a thin product stays out of BLIS: 20 x 64 x 64.
  EXPECT_EQ(gemm_route(20, 64, 64, kBoth, 2), GemmRoute::kEigen);
}

TEST(GemmRoute, LargeProductsGoToOpenBlasOnlyWhenItIsTrusted) {
  // 700 x 10000 x 650: the LM's softmax; 64 rows and more never go to BLIS.
  EXPECT_EQ(gemm_route(700, 10000, 650, kBoth, 1), GemmRoute::kBlas);
  EXPECT_EQ(gemm_route(700, 10000, 650, kBoth, 2), GemmRoute::kBlas);
  EXPECT_EQ(gemm_route(700, 10000, 650, kBlisOnly, 1), GemmRoute::kEigen);
  EXPECT_EQ(gemm_route(700, 10000, 650, kNeither, 2), GemmRoute::kEigen);
  // The work thresholds by hand: on one thread OpenBLAS from 2^18 multiply-adds (64^3 = 2^18), on two from
  // 2^22 (128 x 256 x 128 = 2^22).
  EXPECT_EQ(gemm_route(64, 64, 64, kBlasOnly, 1), GemmRoute::kBlas);
  EXPECT_EQ(gemm_route(64, 64, 63, kBlasOnly, 1), GemmRoute::kEigen);
  EXPECT_EQ(gemm_route(128, 256, 128, kBlasOnly, 2), GemmRoute::kBlas);
  EXPECT_EQ(gemm_route(128, 256, 127, kBlasOnly, 2), GemmRoute::kEigen);
}

TEST(GemmRoute, SetBackendsIsWhatGemmRoutesBy) {
  const GemmBackends saved = gemm_backends();
  set_gemm_backends(kNeither);
  EXPECT_EQ(gemm_route(700, 10000, 650), GemmRoute::kEigen);
  set_gemm_backends(kBlasOnly);
  EXPECT_EQ(gemm_route(700, 10000, 650), GemmRoute::kBlas);
  set_gemm_backends(saved);
}

TEST(GemmRoute, BackendsTextNamesTheKernelsAndWhatEachTakes) {
  const GemmBackends saved = gemm_backends();
  set_gemm_backends(kNeither);
  const std::string off = gemm_backends_text();
  EXPECT_NE(off.find("Eigen 3."), std::string::npos) << off;
  EXPECT_NE(off.find("OpenBLAS "), std::string::npos) << off;
  EXPECT_NE(off.find("(unused: narrower than Eigen's vectors)"), std::string::npos) << off;
  set_gemm_backends(kBoth);
  const std::string on = gemm_backends_text();
  EXPECT_NE(on.find("kernels (large products)"), std::string::npos) << on;
  if (blis_available()) {
    EXPECT_NE(on.find("BLIS " + blis_arch() + " (thin products)"), std::string::npos) << on;
    EXPECT_NE(off.find("(unused: reference kernels)"), std::string::npos) << off;
  } else {
    EXPECT_EQ(on.find("BLIS"), std::string::npos) << on;
  }
  set_gemm_backends(saved);
  // The probe never trusts BLIS's reference configuration.
  if (blis_available() && blis_arch() == "generic") {
    EXPECT_FALSE(detected_gemm_backends().blis);
  }
}

}  // namespace
}  // namespace twin
