// build/bin/lm <experiment.json> [--set k=v ...] [--resume] [--eval-only] [--dump-gates N]   train + evaluate
// build/bin/lm score <run> [--input FILE] [--output FILE] [--batch N]                         score new text
#include "lm_task.h"

int main(int argc, char** argv) { return twin::run_main<twin::lm::LmTask>(argc, argv, "lm"); }
