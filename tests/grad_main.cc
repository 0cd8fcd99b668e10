// Main of the double-precision gradient-check binary, with the op-coverage gate: when the whole suite
// runs (no --gtest_filter), every op in kAllOps must have been seen by at least one gradient check.
#include <gtest/gtest.h>

#include "gradcheck.h"
#include "ops/op_names.h"

namespace {
bool g_filtered = false;

class OpCoverageEnv : public ::testing::Environment {
 public:
  void TearDown() override {
    if (g_filtered) return;
    const auto& seen = twin::test::GradCheck::checked_ops();
    std::string missing;
    for (const char* op : twin::kAllOps)
      if (!seen.count(op)) missing += std::string(missing.empty() ? "" : ", ") + op;
    if (!missing.empty()) ADD_FAILURE() << "ops never gradient-checked: " << missing;
  }
};
}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const std::string filter = ::testing::GTEST_FLAG(filter);
  g_filtered = !(filter.empty() || filter == "*");
  ::testing::AddGlobalTestEnvironment(new OpCoverageEnv);
  return RUN_ALL_TESTS();
}
