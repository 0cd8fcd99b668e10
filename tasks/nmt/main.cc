// build/bin/nmt <experiment.json> [--set k=v ...] [--resume] [--eval-only] [--threads N]     train + evaluate
// build/bin/nmt translate <run|model.bin> ... (see nmt_cli.h)                                 decode
// build/bin/nmt average <run> [--last K] [--out FILE]                                         checkpoint averaging
// build/bin/nmt bench ...: an error saying where the benchmark went (build/bin/speed nmt, tasks/speed/nmt_bench.h)
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "nmt_cli.h"

int main(int argc, char** argv) {
  using namespace twin;
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "translate" || mode == "average" || mode == "bench") {
    try {
      if (mode == "translate") return nmt::translate_main(argc - 1, argv + 1);
      if (mode == "average") return nmt::average_main(argc - 1, argv + 1);
      // Moved (issue 28) rather than dropped, so a command from an old note or report says where it went
      // instead of being read as an experiment file named "bench".
      TW_FAIL("the NMT speed benchmark moved to `build/bin/speed nmt <experiment.json> ...` (same flags)");
    } catch (const Error& e) {
      std::fprintf(stderr, "nmt %s: error: %s\n", argv[1], e.what());
      return 2;
    } catch (const std::filesystem::filesystem_error& e) {   // a path the OS refuses (e.g. a symlink loop)
      std::fprintf(stderr, "nmt %s: error: %s\n", argv[1], e.what());
      return 2;
    } catch (const std::exception& e) {   // as run_main: a message and 70, never std::terminate's abort
      std::fprintf(stderr, "nmt %s: internal error: %s\n", argv[1], e.what());
      return 70;
    }
  }
  return run_main<nmt::NmtTask>(argc, argv, "nmt");
}
