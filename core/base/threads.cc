#include "base/threads.h"

#include <Eigen/Core>

#include "base/fp_mode.h"
#include "base/gemm_blis.h"
#ifdef _OPENMP
#include <omp.h>
#endif

#ifdef TW_HAVE_OPENBLAS
extern "C" void openblas_set_num_threads(int);
#endif

namespace twin {

namespace {
int g_threads = 1;
}

void set_num_threads(int n) {
  if (n > 0) {
    g_threads = n;
#ifdef _OPENMP
    omp_set_num_threads(n);
#endif
    Eigen::setNbThreads(n);
#ifdef TW_HAVE_OPENBLAS
    openblas_set_num_threads(n);
#endif
    blis_set_num_threads(n);
  }
  apply_fp_mode_to_team();   // after the team size is set, so that every thread of the team has the mode
}

int num_threads() { return g_threads; }

}  // namespace twin
