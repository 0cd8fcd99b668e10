// One NER batch in the engine's time-major padded layout (data/batch.h), kept apart from the readers so that
// the double-precision gradient checks can build one by hand without the data layer.
#pragma once
#include <vector>

#include "data/batch.h"

namespace twin::ner {

struct NerBatch {
  SeqBatch words;                         // [T, B] word ids, mask, lengths
  // The characters of the batch's N real words as a padded batch of N "sentences" ([Lc, N]), word n being
  // the n-th real (t, b) slot in time-major order; slot_rows[t*B + b] is that n, or N for a padding slot
  // (the model appends a zero row for them). Empty chars.lengths when the model has no character BiRNN.
  SeqBatch chars;
  Ids slot_rows;
  std::vector<std::vector<int>> gold;     // B tag-id sequences (training); empty for scoring
  Index tokens() const { return words.tokens(); }
};

}  // namespace twin::ner
