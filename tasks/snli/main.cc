// build/bin/snli <experiment.json> [--set k=v ...] [--resume] [--eval-only] [--threads N]   train + evaluate
// build/bin/snli predict <run> [--input FILE] [--output FILE] [--batch N] [--threads N]   label new pairs
// SNLI / SICK natural language inference (ATR paper Appendix A.2.2): the authors' attention-conditioned
// reader ("cond") or Rocktäschel et al.'s word-by-word attention ("wbw") over any registered cell.
#include "snli_task.h"

int main(int argc, char** argv) { return twin::run_main<twin::snli::SnliTask>(argc, argv, "snli"); }
