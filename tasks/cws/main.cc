// build/bin/cws <experiment.json> [--set k=v ...] [--resume] [--eval-only] [--threads N]     train + evaluate
// build/bin/cws segment <run> [--input FILE] [--output FILE] [--batch N]                     segment new text
// Chinese word segmentation (ATR paper Appendix A.2.3): a character BiRNN-CRF trained with the max-margin
// (or CRF log-likelihood) objective, scored with the SIGHAN bakeoff definitions.
#include <string>

#include "cws_segment.h"
#include "cws_task.h"
#include "train/predict_cli.h"

int main(int argc, char** argv) {
  using namespace twin;
  if (argc > 1 && std::string(argv[1]) == "segment") return run_mode("cws segment", cws::segment_main, argc - 1, argv + 1);
  return run_main<cws::CwsTask>(argc, argv, "cws");
}
