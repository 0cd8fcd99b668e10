// build/bin/snli <experiment.json> [--set k=v ...] [--resume] [--eval-only] [--threads N]   train + evaluate
// build/bin/snli predict <run> [--input FILE] [--output FILE] [--batch N] [--threads N]   label new pairs
// SNLI / SICK natural language inference (ATR paper Appendix A.2.2): the authors' attention-conditioned
// reader ("cond") or Rocktäschel et al.'s word-by-word attention ("wbw") over any registered cell.
#include <string>

#include "snli_predict.h"
#include "snli_task.h"
#include "train/predict_cli.h"

int main(int argc, char** argv) {
  using namespace twin;
  if (argc > 1 && std::string(argv[1]) == "predict")
    return run_mode("snli predict", snli::predict_main, argc - 1, argv + 1);
  return run_main<snli::SnliTask>(argc, argv, "snli");
}
