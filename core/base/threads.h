// One switch for every thread pool: OpenMP, Eigen and OpenBLAS together (DESIGN §8: oversubscription
// is the classic CPU trap), and a wall-clock stopwatch.
#pragma once
#include <chrono>

namespace twin {

// n <= 0: leave the library defaults. Either way every thread of the pool then gets the floating-point mode
// (base/fp_mode.h): the one place every binary configures its threads before it computes.
void set_num_threads(int n);
int num_threads();

class Stopwatch {
 public:
  Stopwatch() { reset(); }
  void reset() { start_ = std::chrono::steady_clock::now(); }
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace twin
