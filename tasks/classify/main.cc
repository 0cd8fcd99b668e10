// build/bin/classify <experiment.json> [--set k=v ...] [--resume] [--eval-only] [--threads N]
//                    [--memory N] [--memory-file FILE]                                        train + evaluate
// build/bin/classify predict <run> [--input FILE] [--output FILE] [--batch N] [--threads N]  label new text
// Sentence classification (SST-2 / SST-5, or any `<label> <tokens>` corpus): embeddings -> a recurrent encoder
// of any registered cell or a self-attention block -> pooling -> softmax; --memory writes the LRN paper's
// memory weights (ATR Eq. 10) of a unidirectional ATR/LRN encoder to memory.json.
#include "classify_task.h"

int main(int argc, char** argv) { return twin::run_main<twin::classify::ClassifyTask>(argc, argv, "classify"); }
