// base/fp_mode.h: subnormal results flushed to zero (FTZ) and subnormal inputs read as zero (DAZ) on the
// calling thread, on every thread of the OpenMP team, on threads made afterwards, and inside every binary's
// main (run_with_exit_codes) unless TWIN_SUBNORMALS=keep; a bad TWIN_SUBNORMALS is exit 2. Each check first
// shows the same computation giving a subnormal with the mode off, so none can pass where the mode is ignored.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <thread>

#include "base/fp_mode.h"
#include "base/threads.h"
#include "train/exit_codes.h"
#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#define TW_TEST_X86 1
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

namespace twin {
namespace {

// FLT_MIN * 0.25: a subnormal result unless FTZ is on.
float tiny_product() {
  volatile float a = std::numeric_limits<float>::min();
  volatile float b = 0.25f;
  return a * b;
}

// A subnormal operand (made from its bits, no arithmetic) plus zero: itself unless DAZ is on.
float subnormal_plus_zero() {
  const std::uint32_t bits = 0x00000100u;   // a positive subnormal float
  float d;
  std::memcpy(&d, &bits, sizeof d);
  volatile float v = d;
  volatile float z = 0.0f;
  return v + z;
}

bool is_subnormal(float x) { return x != 0.0f && std::fpclassify(x) == FP_SUBNORMAL; }

#ifdef TW_TEST_X86
// The calling thread's MXCSR, with FTZ and DAZ cleared for the test and restored after it.
class IeeeMode {
 public:
  IeeeMode() : saved_(_mm_getcsr()) { _mm_setcsr(saved_ & ~(0x8000u | 0x0040u)); }   // FTZ bit 15, DAZ bit 6
  ~IeeeMode() { _mm_setcsr(saved_); }

 private:
  unsigned saved_;
};
#endif

TEST(FpMode, CallingThreadFlushesResultsAndInputs) {
#ifndef TW_TEST_X86
  GTEST_SKIP() << "the mode switch is tested on x86 (on AArch64 it sets FPCR.FZ, untested here)";
#else
  IeeeMode ieee;
  ASSERT_FALSE(subnormals_flushed());
  ASSERT_TRUE(is_subnormal(tiny_product()));          // the checks below can fail
  ASSERT_TRUE(is_subnormal(subnormal_plus_zero()));
  flush_subnormals_this_thread();
  EXPECT_TRUE(subnormals_flushed());
  EXPECT_EQ(tiny_product(), 0.0f);
  EXPECT_EQ(subnormal_plus_zero(), 0.0f);
#endif
}

TEST(FpMode, ThreadsMadeAfterInheritTheMode) {
#ifndef TW_TEST_X86
  GTEST_SKIP() << "x86 only";
#else
  IeeeMode ieee;
  bool off_flushed = true, on_flushed = false;
  float off_value = 0, on_value = 1;
  std::thread([&] { off_flushed = subnormals_flushed(); off_value = tiny_product(); }).join();
  ASSERT_FALSE(off_flushed);
  ASSERT_TRUE(is_subnormal(off_value));
  flush_subnormals_this_thread();
  std::thread([&] { on_flushed = subnormals_flushed(); on_value = tiny_product(); }).join();
  EXPECT_TRUE(on_flushed);
  EXPECT_EQ(on_value, 0.0f);
#endif
}

#ifdef _OPENMP
// How many threads of a team of n flush, and how many computed a subnormal.
std::pair<int, int> team_flushing(int n) {
  std::atomic<int> flushed{0}, subnormal{0};
#pragma omp parallel num_threads(n)
  {
    if (subnormals_flushed()) ++flushed;
    if (is_subnormal(tiny_product())) ++subnormal;
  }
  return {flushed.load(), subnormal.load()};
}
#endif

TEST(FpMode, EveryThreadOfTheTeamFlushesAfterSetNumThreads) {
#if !defined(TW_TEST_X86) || !defined(_OPENMP)
  GTEST_SKIP() << "x86 with OpenMP only";
#else
  const int saved = num_threads();
  {
    IeeeMode ieee;
    // The pool's threads (made by earlier tests or by this region) with the mode off, as a pool made before
    // the mode was set would be.
#pragma omp parallel num_threads(3)
    _mm_setcsr(_mm_getcsr() & ~(0x8000u | 0x0040u));
    const auto [flushed_before, subnormal_before] = team_flushing(3);
    ASSERT_EQ(flushed_before, 0);
    ASSERT_EQ(subnormal_before, 3);
    set_num_threads(3);
    const auto [flushed, subnormal] = team_flushing(3);
    EXPECT_EQ(flushed, 3);
    EXPECT_EQ(subnormal, 0);
    // A larger team: its new threads are made by this thread, which flushes.
    const auto [flushed5, subnormal5] = team_flushing(5);
    EXPECT_EQ(flushed5, 5);
    EXPECT_EQ(subnormal5, 0);
  }
  set_num_threads(saved);
#endif
}

TEST(FpMode, EveryMainRunsFlushed) {
#ifndef TW_TEST_X86
  GTEST_SKIP() << "x86 only";
#else
  IeeeMode ieee;
  ASSERT_FALSE(subnormals_flushed());
  float inside = 1;
  const int rc = run_with_exit_codes("fp_mode_test", [&] {
    inside = tiny_product();
    return subnormals_flushed() ? 0 : 1;
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(inside, 0.0f);
#endif
}

// TWIN_SUBNORMALS set for one test; unset again (and the default mode chosen again) after it.
class SubnormalsEnv {
 public:
  explicit SubnormalsEnv(const char* v) { setenv("TWIN_SUBNORMALS", v, 1); }
  ~SubnormalsEnv() {
    unsetenv("TWIN_SUBNORMALS");
    set_fp_mode();
  }
};

TEST(FpMode, KeepLeavesIeeeArithmetic) {
#ifndef TW_TEST_X86
  GTEST_SKIP() << "x86 only";
#else
  IeeeMode ieee;
  SubnormalsEnv env("keep");
  float inside = 0;
  std::string text;
  const int rc = run_with_exit_codes("fp_mode_test", [&] {
    set_num_threads(num_threads());   // the team is left as it is too
    inside = tiny_product();
    text = fp_mode_text();
    return subnormals_flushed() ? 1 : 0;
  });
  EXPECT_EQ(rc, 0);
  EXPECT_TRUE(is_subnormal(inside));
  EXPECT_EQ(text, "kept (TWIN_SUBNORMALS=keep)");
#endif
}

TEST(FpMode, FlushByNameAndItsText) {
#ifndef TW_TEST_X86
  GTEST_SKIP() << "x86 only";
#else
  IeeeMode ieee;
  SubnormalsEnv env("flush");
  std::string text;
  EXPECT_EQ(run_with_exit_codes("fp_mode_test", [&] {
              text = fp_mode_text();
              return subnormals_flushed() ? 0 : 1;
            }),
            0);
  EXPECT_EQ(text, "flushed to zero");
#endif
}

TEST(FpMode, BadValueIsBadInputNamingTheVariable) {
  SubnormalsEnv env("ftz");
  bool ran = false;
  testing::internal::CaptureStderr();
  const int rc = run_with_exit_codes("fp_mode_test", [&] {
    ran = true;
    return 0;
  });
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, kExitBadInput);
  EXPECT_FALSE(ran);
  EXPECT_NE(err.find("TWIN_SUBNORMALS=ftz: expected 'flush'"), std::string::npos) << err;
}

}  // namespace
}  // namespace twin
