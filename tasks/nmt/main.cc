// build/bin/nmt <experiment.json> [--set k=v ...] [--resume] [--eval-only] [--threads N]     train + evaluate
// build/bin/nmt translate <run|model.bin> ... (see nmt_cli.h)                                 decode
// build/bin/nmt average <run> [--last K] [--out FILE]                                         checkpoint averaging
#include <cstdio>
#include <cstring>

#include "nmt_cli.h"

int main(int argc, char** argv) {
  using namespace twin;
  if (argc > 1 && (!std::strcmp(argv[1], "translate") || !std::strcmp(argv[1], "average"))) {
    try {
      return !std::strcmp(argv[1], "translate") ? nmt::translate_main(argc - 1, argv + 1)
                                                : nmt::average_main(argc - 1, argv + 1);
    } catch (const Error& e) {
      std::fprintf(stderr, "nmt %s: error: %s\n", argv[1], e.what());
      return 2;
    }
  }
  return run_main<nmt::NmtTask>(argc, argv, "nmt");
}
