// gemm_route by hand (core/base/gemm.h): which library takes a product, for every combination of trusted
// libraries and thread counts, and the backends line of --version and the speed reports.
#include <gtest/gtest.h>

#include <string>

#include "base/gemm.h"
#include "base/gemm_blis.h"

namespace twin {
namespace {

constexpr GemmBackends kBoth{true, true}, kBlasOnly{false, true}, kBlisOnly{true, false}, kNeither{false, false};

struct RouteCase {
  const char* why;
  Index m, n, k;
  GemmBackends trusted;
  int threads;
  GemmRoute expect;
};

TEST(GemmRoute, EachProductGoesToATrustedLibraryOrEigen) {
  const RouteCase cases[] = {
      // 20 x 650 x 1950: a recurrent product of the 2 x 650 GRU LM (rows = batch), 2.5e7 multiply-adds.
      {"thin, BLIS trusted", 20, 1950, 650, kBoth, 1, GemmRoute::kBlis},
      {"thin, BLIS only", 20, 1950, 650, kBlisOnly, 2, GemmRoute::kBlis},
      {"thin, BLIS untrusted, one thread: OpenBLAS", 20, 1950, 650, kBlasOnly, 1, GemmRoute::kBlas},
      {"thin, BLIS untrusted, two threads: Eigen's split", 20, 1950, 650, kBlasOnly, 2, GemmRoute::kEigen},
      {"thin, neither trusted", 20, 1950, 650, kNeither, 1, GemmRoute::kEigen},
      {"thin below BLIS's 2^17 multiply-adds", 20, 64, 64, kBoth, 2, GemmRoute::kEigen},
      // 700 x 10000 x 650: the LM's softmax; 64 rows and more never go to BLIS.
      {"large, one thread", 700, 10000, 650, kBoth, 1, GemmRoute::kBlas},
      {"large, two threads", 700, 10000, 650, kBoth, 2, GemmRoute::kBlas},
      {"large, OpenBLAS untrusted", 700, 10000, 650, kBlisOnly, 1, GemmRoute::kEigen},
      {"large, neither trusted", 700, 10000, 650, kNeither, 2, GemmRoute::kEigen},
      // The work thresholds: one thread from 2^18 multiply-adds (64^3), two from 2^22 (128 x 256 x 128).
      {"one thread at 2^18", 64, 64, 64, kBlasOnly, 1, GemmRoute::kBlas},
      {"one thread below 2^18", 64, 64, 63, kBlasOnly, 1, GemmRoute::kEigen},
      {"two threads at 2^22", 128, 256, 128, kBlasOnly, 2, GemmRoute::kBlas},
      {"two threads below 2^22", 128, 256, 127, kBlasOnly, 2, GemmRoute::kEigen},
  };
  for (const RouteCase& c : cases)
    EXPECT_STREQ(gemm_route_name(gemm_route(c.m, c.n, c.k, c.trusted, c.threads)), gemm_route_name(c.expect))
        << c.why;
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
