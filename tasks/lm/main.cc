// build/bin/lm <experiment.json> [--set k=v ...] [--resume] [--eval-only] [--dump-gates N]   train + evaluate
// build/bin/lm score <run> [--input FILE] [--output FILE] [--batch N]                         score new text
#include <string>

#include "lm_score.h"
#include "lm_task.h"
#include "train/predict_cli.h"

int main(int argc, char** argv) {
  using namespace twin;
  if (argc > 1 && std::string(argv[1]) == "score") return run_mode("lm score", lm::score_main, argc - 1, argv + 1);
  return run_main<lm::LmTask>(argc, argv, "lm");
}
