// build/bin/cws <experiment.json> [--set k=v ...] [--resume] [--eval-only] [--threads N]     train + evaluate
// build/bin/cws segment <run> [--input FILE] [--output FILE] [--batch N]                     segment new text
// Chinese word segmentation (ATR paper Appendix A.2.3): a character BiRNN-CRF trained with the max-margin
// (or CRF log-likelihood) objective, scored with the SIGHAN bakeoff definitions.
#include "cws_task.h"

int main(int argc, char** argv) { return twin::run_main<twin::cws::CwsTask>(argc, argv, "cws"); }
