// The build without oneDNN, tested in every configuration. oneDNN is built in by default (TW_WITH_DNNL=ON,
// issue 56), so the float tests (test_gemm_dnnl.cc, test_gemm_route.cc, test_dnnl_rnn.cc) take their oneDNN
// branches wherever libdnnl-dev is installed, and the fallback for a machine or configure without it would go
// untested. The double engine of the gradient checks is always built without oneDNN (oneDNN has f32 only:
// gemm_dnnl.cc and dnnl_rnn.cc compile to their stubs under TW_REAL_DOUBLE), so this binary is that build:
// here the routing must never pick oneDNN, whatever it is asked, the products still run (in Eigen or OpenBLAS),
// and asking for oneDNN by name is an error that says how to build with it.
#include <gtest/gtest.h>

#include <string>

#include "base/check.h"
#include "base/gemm.h"
#include "base/gemm_dnnl.h"
#include "graph/param.h"
#include "ops/dnnl_rnn.h"
#include "rnn/cell_factory.h"
#include "test_util.h"

namespace twin {
namespace {

using test::error_of;

TEST(WithoutOneDnn, NothingReportsOneDnn) {
  EXPECT_FALSE(dnnl_available());
  EXPECT_FALSE(dnnl_rnn_available());
  EXPECT_FALSE(dnnl_isa_tuned());
  EXPECT_EQ(dnnl_isa(), "");
  EXPECT_FALSE(detected_gemm_backends().dnnl);
  EXPECT_FALSE(gemm_backends().dnnl);
  // --version's backends line (and the speed reports') names no oneDNN, whatever was asked.
  EXPECT_EQ(gemm_backends_text(GemmBackends{true, true, true}, false).find("oneDNN"), std::string::npos);
  EXPECT_EQ(gemm_backends_text(GemmBackends{true, true, true}, true).find("oneDNN"), std::string::npos);
}

TEST(WithoutOneDnn, RoutingNeverPicksOneDnnAndTheProductsStillRun) {
  const GemmBackends saved = gemm_backends();
  set_gemm_backends(GemmBackends{false, false, true});   // oneDNN asked for: not in this build
  EXPECT_FALSE(gemm_backends().dnnl);
  for (const Index n : {8, 64, 700})
    for (const int threads : {1, 2}) EXPECT_NE(gemm_route(n, n, n, gemm_backends(), threads), GemmRoute::kDnnl) << n;
  // A product above oneDNN's threshold (2^18 multiply-adds) runs, and equals Eigen's.
  Mat a = Mat::Random(70, 80), b = Mat::Random(80, 90), c(70, 90);
  ASSERT_GE(70.0 * 80 * 90, kDnnlMinWork);
  gemm(a, false, b, false, c);
  EXPECT_LE((c - a * b).cwiseAbs().maxCoeff(), 1e-12);
  set_gemm_backends(saved);
}

TEST(WithoutOneDnn, AskingForItByNameSaysHowToBuildWithIt) {
  const std::string e = error_of([] { parse_gemm_backends("blas,dnnl"); });
  EXPECT_EQ(e.rfind("TWIN_GEMM_BACKENDS=blas,dnnl: 'dnnl': this build has no oneDNN (install libdnnl-dev and "
                    "configure with -DTW_WITH_DNNL=ON; float builds only)",
                    0),
            0u)
      << e;
  // The message for a name no build knows is the one every build gives (the README's table shows it).
  const std::string unknown = error_of([] { parse_gemm_backends("blas,mkl"); });
  EXPECT_EQ(unknown.rfind("TWIN_GEMM_BACKENDS=blas,mkl: 'mkl' is not one of detect, eigen, blas, blis, dnnl "
                          "(comma-separated)",
                          0),
            0u)
      << unknown;
  const std::string direct = error_of([] {
    Mat a(2, 2), b(2, 2), c(2, 2);
    gemm_dnnl(a, false, b, false, c, 1, 0);
  });
  EXPECT_NE(direct.find("libdnnl-dev"), std::string::npos) << direct;
}

TEST(WithoutOneDnn, KernelDnnlIsRefusedNamingTheKeyAndTheSuiteKernelRuns) {
  for (const char* type : {"lstm", "gru"}) {
    CellConfig cfg;
    cfg.type = type;
    cfg.hidden = 4;
    cfg.kernel = CellKernel::kDnnl;
    ParamStore store;
    const std::string e = error_of([&] { make_cell(cfg, 3, store, "s"); });
    EXPECT_NE(e.find(std::string("cell '") + type + "': kernel='dnnl' needs a build with oneDNN"), std::string::npos)
        << e;
    EXPECT_NE(e.find("HINT: kernel='suite'"), std::string::npos) << e;
    cfg.kernel = CellKernel::kSuite;
    ParamStore suite_store;
    EXPECT_NE(make_cell(cfg, 3, suite_store, "s"), nullptr) << type;
  }
}

}  // namespace
}  // namespace twin
