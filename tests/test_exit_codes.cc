// train/exit_codes.h: the one error-to-exit-code ladder of every binary, and the stop reasons' codes.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "train/exit_codes.h"

namespace twin {
namespace {

TEST(ExitCodes, EachKindOfFailureGivesItsCodeAndOneLabelledLine) {
  struct Case {
    int expect;
    std::string line;
    int (*body)();
  };
  const Case cases[] = {
      {7, "", [] { return 7; }},
      {kExitBadInput, "probe: error: bad key", []() -> int { TW_FAIL("bad key"); }},
      {kExitBadInput, "probe: error: ", []() -> int {
         throw std::filesystem::filesystem_error("loop", std::filesystem::path("a/b"),
                                                 std::make_error_code(std::errc::too_many_symbolic_link_levels));
       }},
      {kExitInternal, "probe: internal error: oops\n", []() -> int { throw std::runtime_error("oops"); }},
  };
  for (const Case& c : cases) {
    testing::internal::CaptureStderr();
    const int rc = run_with_exit_codes("probe", c.body);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(rc, c.expect) << err;
    if (c.line.empty()) {
      EXPECT_EQ(err, "");
    } else {
      EXPECT_EQ(err.rfind(c.line, 0), 0u) << err;
      EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    }
  }
}

TEST(ExitCodes, StopReasonsMapToTheirCodesAndNames) {
  EXPECT_EQ(exit_code(StopReason::kSignal), 130);
  EXPECT_EQ(exit_code(StopReason::kNonFinite), 3);
  for (StopReason r : {StopReason::kMaxEpochs, StopReason::kMaxSteps, StopReason::kMaxMinutes, StopReason::kEarlyStop}) {
    EXPECT_EQ(exit_code(r), 0) << stop_reason_name(r);
    EXPECT_TRUE(evaluates_after(r)) << stop_reason_name(r);
  }
  EXPECT_FALSE(evaluates_after(StopReason::kSignal));
  EXPECT_FALSE(evaluates_after(StopReason::kNonFinite));
  // summary.json's spellings (results tables and tools read them), each its own.
  EXPECT_EQ(stop_reason_name(StopReason::kMaxEpochs), "max_epochs");
  EXPECT_EQ(stop_reason_name(StopReason::kEarlyStop), "early_stop");
  EXPECT_EQ(stop_reason_name(StopReason::kNonFinite), "non_finite");
  for (const auto& [r, name] : kStopReasonNames) EXPECT_EQ(value_of(kStopReasonNames, name), r) << name;
}

}  // namespace
}  // namespace twin
