// A generated SQuAD for the rc task's smoke runs and tests (CI may have no SQuAD), written as data_prep/squad.py
// writes the real splits (<dir>/{train,heldout,dev}.jsonl: tokens, UTF-8 byte offsets, answer spans), with a
// GloVe-format vectors file of its words (<dir>/glove.txt, `dim` values each) and the dev split also in SQuAD's
// official layout (<dir>/dev.json: the dataset `rc predict` reads and evaluate-v1.1.py scores against).
// A paragraph is 2 to 4 sentences "<Name> <verb> <Name>." (one non-ASCII name, so byte and character offsets
// differ); each sentence is asked "Who <verb> <Name>?", answered by its first name: learnable from the question.
#pragma once
#include <cstdint>
#include <string>

namespace twin::rc {

void write_synthetic_squad(const std::string& dir, std::uint64_t seed, int train_paragraphs = 40,
                           int eval_paragraphs = 6, int dim = 6);

}  // namespace twin::rc
