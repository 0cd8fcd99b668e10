// gemm_route by hand (core/base/gemm.h): which library takes a product, for every combination of trusted
// libraries and thread counts, and the backends line of --version and the speed reports.
#include <cblas.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "base/check.h"
#include "base/gemm.h"
#include "base/gemm_blis.h"
#include "base/gemm_dnnl.h"

namespace twin {
namespace {

constexpr GemmBackends kBoth{true, true, false}, kBlasOnly{false, true, false}, kBlisOnly{true, false, false},
    kNeither{false, false, false}, kAll{true, true, true}, kDnnlOnly{false, false, true};

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
      // oneDNN trusted: every product from 2^18 multiply-adds (64^3), thin or large, one or two threads; below
      // it the other libraries' rules as before.
      {"thin, oneDNN trusted, one thread", 20, 1950, 650, kAll, 1, GemmRoute::kDnnl},
      {"thin, oneDNN trusted, two threads", 20, 1950, 650, kAll, 2, GemmRoute::kDnnl},
      {"large, oneDNN trusted", 700, 10000, 650, kAll, 2, GemmRoute::kDnnl},
      {"large, oneDNN only", 700, 10000, 650, kDnnlOnly, 1, GemmRoute::kDnnl},
      {"oneDNN at 2^18", 64, 64, 64, kDnnlOnly, 2, GemmRoute::kDnnl},
      {"oneDNN below 2^18", 64, 64, 63, kDnnlOnly, 2, GemmRoute::kEigen},
      {"below 2^18, one thread, OpenBLAS trusted", 64, 64, 63, kAll, 1, GemmRoute::kEigen},
      {"thin below 2^18, BLIS trusted", 20, 160, 64, kAll, 2, GemmRoute::kBlis},
      {"oneDNN untrusted: BLIS again", 20, 1950, 650, kBoth, 2, GemmRoute::kBlis},
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
  // oneDNN only in a build that has it: set_gemm_backends drops it otherwise.
  set_gemm_backends(kDnnlOnly);
  EXPECT_EQ(gemm_route(700, 10000, 650), dnnl_available() ? GemmRoute::kDnnl : GemmRoute::kEigen);
  EXPECT_EQ(gemm_backends().dnnl, dnnl_available());
  set_gemm_backends(saved);
  // The probe trusts oneDNN exactly when it is built in and runs AVX2 or AVX-512 kernels.
  EXPECT_EQ(detected_gemm_backends().dnnl, dnnl_available() && dnnl_isa_tuned());
}

TEST(GemmRoute, BackendsTextNamesTheKernelsAndWhatEachTakes) {
  const GemmBackends saved = gemm_backends();
  set_gemm_backends(kNeither);
  const std::string off = gemm_backends_text();
  EXPECT_NE(off.find("Eigen 3."), std::string::npos) << off;
  EXPECT_NE(off.find("OpenBLAS "), std::string::npos) << off;
  const GemmBackends probe = detected_gemm_backends();
  // OpenBLAS left out: the probe's reason where its kernels are narrower than Eigen's vectors (Haswell kernels
  // under AVX-512 Eigen), plain "disabled" where the probe trusts them (SkylakeX kernels on an AVX-512 machine).
  EXPECT_NE(off.find(std::string("OpenBLAS ") + openblas_get_corename() + " kernels " +
                     (probe.blas ? "(unused: disabled)" : "(unused: narrower than Eigen's vectors)")),
            std::string::npos)
      << off;
  set_gemm_backends(kBoth);
  const std::string on = gemm_backends_text();
  EXPECT_NE(on.find("kernels (large products)"), std::string::npos) << on;
  if (blis_available()) {
    EXPECT_NE(on.find("BLIS " + blis_arch() + " (thin products)"), std::string::npos) << on;
    // Left out by set_gemm_backends: the probe's reason only when the probe leaves it out too.
    EXPECT_NE(off.find(probe.blis ? "BLIS " + blis_arch() + " (unused: disabled)" : "(unused: reference kernels)"),
              std::string::npos)
        << off;
  } else {
    EXPECT_EQ(on.find("BLIS"), std::string::npos) << on;
  }
  if (dnnl_available()) {
    EXPECT_NE(off.find("oneDNN " + dnnl_version() + " " + dnnl_isa() + " (unused: "), std::string::npos) << off;
    set_gemm_backends(kAll);
    const std::string all = gemm_backends_text();
    EXPECT_NE(all.find("oneDNN " + dnnl_version() + " " + dnnl_isa() + " " + kDnnlTakes), std::string::npos) << all;
  } else {
    EXPECT_EQ(on.find("oneDNN"), std::string::npos) << on;
  }
  set_gemm_backends(saved);
  // The probe never trusts BLIS's reference configuration.
  if (blis_available() && blis_arch() == "generic") {
    EXPECT_FALSE(detected_gemm_backends().blis);
  }
}

// The bug of issue 56: a BLIS with tuned kernels left out by TWIN_GEMM_BACKENDS was reported as running
// "reference kernels". Whatever the probe says, a library the variable leaves out says so.
TEST(GemmRoute, BackendsTextSaysWhatTheVariableDisabled) {
  const std::string text = gemm_backends_text(kNeither, /*from_variable=*/true);
  EXPECT_NE(text.find("(unused: disabled by TWIN_GEMM_BACKENDS"), std::string::npos) << text;
  if (blis_available()) {
    EXPECT_NE(text.find("BLIS " + blis_arch() + " (unused: disabled by TWIN_GEMM_BACKENDS"), std::string::npos) << text;
    if (detected_gemm_backends().blis) {
      EXPECT_EQ(text.find("reference kernels"), std::string::npos) << text;
    }
  }
  if (dnnl_available()) {
    EXPECT_NE(text.find("oneDNN " + dnnl_version() + " " + dnnl_isa() + " (unused: disabled by TWIN_GEMM_BACKENDS"),
              std::string::npos)
        << text;
  }
  const std::string blas_only = gemm_backends_text(kBlasOnly, true);
  EXPECT_NE(blas_only.find("kernels (large products)"), std::string::npos) << blas_only;
}

#ifdef TW_BIN_DIR
// The same through the variable itself, in a task binary's --version (the variable is read once per process).
TEST(GemmRoute, VersionLineSaysWhatTheVariableDisabled) {
  const std::string cmd = std::string("TWIN_GEMM_BACKENDS=eigen ") + TW_BIN_DIR + "/lm --version 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr) << cmd;
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p) != nullptr) out += buf;
  ASSERT_EQ(pclose(p), 0) << cmd << "\n" << out;
  EXPECT_NE(out.find("OpenBLAS "), std::string::npos) << out;
  EXPECT_NE(out.find("(unused: disabled by TWIN_GEMM_BACKENDS"), std::string::npos) << out;
  EXPECT_EQ(out.find("(unused: disabled)"), std::string::npos) << out;
  if (blis_available() && detected_gemm_backends().blis) {
    EXPECT_EQ(out.find("reference kernels"), std::string::npos) << out;
  }
}
#endif

// TWIN_GEMM_BACKENDS's values: the probe, each library, a list, "eigen" for none; a library the build lacks or
// a name the routing does not know is an error that names the variable and the bad name.
TEST(GemmRoute, ParsesTheVariable) {
  const GemmBackends probe = detected_gemm_backends();
  for (const char* v : {static_cast<const char*>(nullptr), "detect"}) {
    const GemmBackends b = parse_gemm_backends(v);
    EXPECT_EQ(b.blas, probe.blas);
    EXPECT_EQ(b.blis, probe.blis);
    EXPECT_EQ(b.dnnl, probe.dnnl);
  }
  const GemmBackends none = parse_gemm_backends("eigen");
  EXPECT_FALSE(none.blas || none.blis || none.dnnl);
  const GemmBackends blas = parse_gemm_backends("blas");
  EXPECT_TRUE(blas.blas && !blas.blis && !blas.dnnl);
  const auto error_of = [](const char* v) {
    try {
      parse_gemm_backends(v);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  if (dnnl_available()) {
    const GemmBackends d = parse_gemm_backends("dnnl");
    EXPECT_TRUE(d.dnnl && !d.blas && !d.blis);
    const GemmBackends bd = parse_gemm_backends("blas,dnnl");
    EXPECT_TRUE(bd.dnnl && bd.blas && !bd.blis);
  } else {   // also checked where oneDNN is never built in: tests/grad_without_onednn.cc
    const std::string e = error_of("blas,dnnl");
    EXPECT_NE(e.find("TWIN_GEMM_BACKENDS=blas,dnnl: 'dnnl': this build has no oneDNN"), std::string::npos) << e;
    EXPECT_NE(e.find("-DTW_WITH_DNNL=ON"), std::string::npos) << e;
  }
  if (!blis_available()) {
    const std::string e = error_of("blis");
    EXPECT_NE(e.find("TWIN_GEMM_BACKENDS=blis: 'blis': this build has no BLIS"), std::string::npos) << e;
  }
  if (blis_available()) {
    const GemmBackends all = parse_gemm_backends(dnnl_available() ? "blas,blis,dnnl" : "blas,blis");
    EXPECT_TRUE(all.blas && all.blis && all.dnnl == dnnl_available());
  }
  // An unknown name's message is the same in every build (the README's table of bad inputs shows it).
  const std::string bad = error_of("blas,mkl");
  EXPECT_EQ(bad.rfind("TWIN_GEMM_BACKENDS=blas,mkl: 'mkl' is not one of detect, eigen, blas, blis, dnnl "
                      "(comma-separated)  (gemm.cc:", 0), 0u) << bad;
  EXPECT_EQ(parse_gemm_backends("eigen,eigen").blas, false);
  EXPECT_NE(error_of("").find("'' is not one of"), std::string::npos);
  EXPECT_NE(error_of("blas,").find("'' is not one of"), std::string::npos);
}

}  // namespace
}  // namespace twin
