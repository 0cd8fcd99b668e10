// The op/product profiler (base/profile.h): off by default and then records nothing; on, it attributes
// forward and backward calls to the right ops and counts every product once per call with its shape.
#include <gtest/gtest.h>

#include "base/profile.h"
#include "ops/ops.h"
#include "test_util.h"

namespace twin {
namespace {

// One graph: y = sum(tanh(x W)), forward and backward, `steps` times.
void run_steps(int steps) {
  ParamStore store;
  Param& w = store.add("W", 30, 40, [](Mat& m, Rng& r) { r.fill_normal(m, 0, 1); });
  for (int s = 0; s < steps; ++s) {
    Graph g;
    Var y = sum_all(tanh(matmul(g.constant(test::uniform_mat(70, 30, 1)), g.param(w))));
    g.backward(y);
  }
}

struct ProfileOn {
  ProfileOn() {
    profile::reset();
    profile::set_enabled(true);
  }
  ~ProfileOn() {
    profile::set_enabled(false);
    profile::reset();
  }
};

TEST(Profile, OffByDefaultRecordsNothing) {
  ASSERT_FALSE(profile::enabled()) << "TWIN_PROFILE is set in the test environment";
  profile::reset();
  run_steps(1);
  const std::string r = profile::report(1);
  EXPECT_EQ(r.find("| matmul"), std::string::npos) << r;
  EXPECT_EQ(r.find("70x30x40"), std::string::npos) << r;
}

TEST(Profile, CountsOpsAndProductsPerStep) {
  const ProfileOn on;
  run_steps(4);
  const std::string r = profile::report(4);
  // Per step: matmul, tanh and sum_all forward once and backward once; the products are the forward
  // [70x30]x[30x40], dW = x^T dy ([30x70]x[70x40], TN) and no dx (x is a constant).
  EXPECT_NE(r.find("| matmul | 1 | "), std::string::npos) << r;
  EXPECT_NE(r.find("| tanh | 1 | "), std::string::npos) << r;
  EXPECT_NE(r.find("| sum_all | 1 | "), std::string::npos) << r;
  EXPECT_NE(r.find("| 70x30x40 | NN | "), std::string::npos) << r;
  EXPECT_NE(r.find("| 30x70x40 | TN | "), std::string::npos) << r;
  EXPECT_EQ(r.find("| 70x40x30 |"), std::string::npos) << "dx of a constant was computed:\n" << r;
}

}  // namespace
}  // namespace twin
