// The unit tests run in the floating-point mode of every binary (base/fp_mode.h: subnormals flushed to zero
// unless TWIN_SUBNORMALS=keep), set here once, so that no test's outcome depends on whether a test before it
// in the same process ran a task's main (run_with_exit_codes sets the mode) or set_num_threads (which sets it on
// the OpenMP team and the calling thread). The FpMode tests clear and restore it around their own checks.
#include <gtest/gtest.h>

#include "base/fp_mode.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  twin::set_fp_mode();
  return RUN_ALL_TESTS();
}
