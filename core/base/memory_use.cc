#include "base/memory_use.h"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>

namespace twin {

double current_rss_mb() {
  std::ifstream f("/proc/self/statm");
  long size = 0, resident = 0;
  if (!(f >> size >> resident)) return 0;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;   // Linux: KiB
}

}  // namespace twin
