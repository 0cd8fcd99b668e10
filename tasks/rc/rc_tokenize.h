// data_prep/squad.py's tokeniser in C++, for text that did not go through data_prep (`rc predict`'s input): a
// token is a maximal run of word characters (Python's [^\W_]: str.isalnum(), core/eval/squad_eval.h's
// is_squad_word_char by Python's generated table, without '_'), or any other single character that is not whitespace
// (Python's \s: data/unicode_text.h's unicode_whitespace_length); whitespace separates tokens and is never part
// of one. So "Levi's 24–10 U.S." gives Levi ' s 24 – 10 U . S . as squad.py does (tests/test_rc_task.cc; on the
// prepared SQuAD splits every paragraph and question is compared with squad.py's tokens, tests/test_rc_real_data.cc).
#pragma once
#include <string_view>
#include <vector>

#include "rc_data.h"

namespace twin::rc {

struct Tokens {
  std::vector<std::string> tokens;
  std::vector<ByteSpan> offsets;   // UTF-8 byte offsets [b, e) of each token in the text, as squad.py writes them
};

// The tokens of `text` (valid UTF-8: a byte that starts no valid sequence is a token of its own).
Tokens squad_tokenize(std::string_view text);

}  // namespace twin::rc
