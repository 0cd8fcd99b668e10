// build/bin/ner <experiment.json> [--set k=v ...] [--resume] [--eval-only] [--threads N]   train + evaluate
// build/bin/ner tag <run> [--input FILE] [--output FILE] [--batch N] [--threads N]       tag new text
// Named-entity recognition (Lample et al. 2016's BiRNN-CRF with a character BiRNN, any registered cell), scored
// by entity-level F1 as conlleval counts it.
#include <string>

#include "ner_tag.h"
#include "ner_task.h"
#include "train/predict_cli.h"

int main(int argc, char** argv) {
  using namespace twin;
  if (argc > 1 && std::string(argv[1]) == "tag") return run_mode("ner tag", ner::tag_main, argc - 1, argv + 1);
  return run_main<ner::NerTask>(argc, argv, "ner");
}
