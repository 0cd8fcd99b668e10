// build/bin/nmt <experiment.json> [--set k=v ...] [--resume] [--eval-only] [--threads N]     train + evaluate
// build/bin/nmt translate <run|model.bin> ... (see nmt_cli.h)                                 decode
// build/bin/nmt average <run> [--last K] [--out FILE]                                         checkpoint averaging
// build/bin/nmt bench ...: an error saying where the benchmark went (build/bin/speed nmt, tasks/speed/nmt_bench.h)
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "nmt_cli.h"
#include "train/exit_codes.h"

int main(int argc, char** argv) {
  using namespace twin;
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "translate" || mode == "average" || mode == "bench") {
    const std::string label = "nmt " + mode;
    return run_with_exit_codes(label.c_str(), [&] {
      if (mode == "translate") return nmt::translate_main(argc - 1, argv + 1);
      if (mode == "average") return nmt::average_main(argc - 1, argv + 1);
      // Moved (issue 28) rather than dropped, so a command from an old note or report says where it went
      // instead of being read as an experiment file named "bench".
      TW_FAIL("the NMT speed benchmark moved to `build/bin/speed nmt <experiment.json> ...` (same flags)");
    });
  }
  return run_main<nmt::NmtTask>(argc, argv, "nmt");
}
