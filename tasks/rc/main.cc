// build/bin/rc <experiment.json> [--set k=v ...] [--resume] [--eval-only] [--threads N]   train + evaluate
// build/bin/rc predict <run> [--input FILE] [--output FILE] [--batch N] [--threads N]   answer SQuAD-format questions
// Reading comprehension (the LRN paper's sixth task, issue 53): R-Net on SQuAD with any registered cell.
#include "rc_task.h"

int main(int argc, char** argv) { return twin::run_main<twin::rc::RcTask>(argc, argv, "rc"); }
