// build/bin/ner <experiment.json> [--set k=v ...] [--resume] [--eval-only] [--threads N]   train + evaluate
// build/bin/ner tag <run> [--input FILE] [--output FILE] [--batch N] [--threads N]       tag new text
// Named-entity recognition (Lample et al. 2016's BiRNN-CRF with a character BiRNN, any registered cell), scored
// by entity-level F1 as conlleval counts it.
#include "ner_task.h"

int main(int argc, char** argv) { return twin::run_main<twin::ner::NerTask>(argc, argv, "ner"); }
