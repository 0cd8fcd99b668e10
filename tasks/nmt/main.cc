// build/bin/nmt <experiment.json> [--set k=v ...] [--resume] [--eval-only] [--threads N]     train + evaluate
// build/bin/nmt translate <run|model.bin> ... (see nmt_cli.h)                                 decode
// build/bin/nmt average <run> [--last K] [--out FILE]                                         checkpoint averaging
// build/bin/nmt bench ...: an error saying where the benchmark went (build/bin/speed nmt, tasks/speed/nmt_bench.h)
#include "nmt_task.h"

int main(int argc, char** argv) { return twin::run_main<twin::nmt::NmtTask>(argc, argv, "nmt"); }
