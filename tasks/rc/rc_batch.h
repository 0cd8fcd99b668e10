// One batch of SQuAD questions as the reading-comprehension model reads it (issue 53). Time-major like every
// sequence in the suite: row t*B + b is position t of question b. Written by the data side (rc_data.cc), read
// by the model (rc_model.cc); kept apart so that neither includes the other.
#pragma once
#include <vector>

#include "base/real.h"

namespace twin::rc {

struct RcBatch {
  Index batch = 0;         // B
  Index passage_len = 0;   // Tp: the longest passage of the batch (<= data.passage_limit)
  Index question_len = 0;  // Tq: the longest question of the batch (<= data.question_limit)
  Index word_len = 0;      // Lc: characters kept per word (data.char_limit; shorter words padded)
  std::vector<int> passage_words;   // [Tp*B], row t*B + b; 0 = padding, 1 = unknown word
  std::vector<int> question_words;  // [Tq*B]
  std::vector<int> passage_chars;   // [Tp*B*Lc]: character c of word (t, b) at (t*B + b)*Lc + c; 0 = padding
  std::vector<int> question_chars;  // [Tq*B*Lc]
  Mat passage_mask;                 // [Tp*B, 1]: 1 at a real token, 0 at padding
  Mat question_mask;                // [Tq*B, 1]
  std::vector<int> answer_start;    // [B]: token index of the answer's first token (empty when predicting)
  std::vector<int> answer_end;      // [B]: its last token, inclusive
};

}  // namespace twin::rc
