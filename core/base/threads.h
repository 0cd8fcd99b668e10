// One switch for every thread pool: OpenMP, Eigen and OpenBLAS together (DESIGN §8: oversubscription
// is the classic CPU trap), and a wall-clock stopwatch.
#pragma once
#include <chrono>

namespace twin {

void set_num_threads(int n);  // n <= 0: leave the library defaults
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
