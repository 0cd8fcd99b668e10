// build/bin/lm <experiment.json> [--set k=v ...] [--resume] [--eval-only] [--dump-gates N]
#include "lm_task.h"

int main(int argc, char** argv) { return twin::run_main<twin::lm::LmTask>(argc, argv, "lm"); }
