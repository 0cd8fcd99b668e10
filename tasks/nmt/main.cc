// build/bin/nmt <experiment.json> [--set k=v ...] [--resume] [--eval-only] [--threads N]     train + evaluate
// build/bin/nmt translate <run|model.bin> ... (see nmt_cli.h)                                 decode
// build/bin/nmt average <run> [--last K] [--out FILE]                                         checkpoint averaging
// build/bin/nmt bench <experiment.json> [--cells atr,gru,lstm] ...                            Table 4 speed
#include <cstdio>
#include <cstring>
#include <string>

#include "nmt_cli.h"

int main(int argc, char** argv) {
  using namespace twin;
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "translate" || mode == "average" || mode == "bench") {
    try {
      if (mode == "translate") return nmt::translate_main(argc - 1, argv + 1);
      if (mode == "average") return nmt::average_main(argc - 1, argv + 1);
      return nmt::bench_main(argc - 1, argv + 1);
    } catch (const Error& e) {
      std::fprintf(stderr, "nmt %s: error: %s\n", argv[1], e.what());
      return 2;
    }
  }
  return run_main<nmt::NmtTask>(argc, argv, "nmt");
}
