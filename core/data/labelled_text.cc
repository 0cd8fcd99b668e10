// The shared data code of the labelled-text tasks (snli, classify), declared in data/labelled_text.h.
#include "data/labelled_text.h"

#include <filesystem>

#include "base/check.h"

namespace twin {

void lowercase_ascii(std::vector<std::string>& tokens) {
  for (auto& w : tokens)
    for (char& ch : w)
      if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
}

Vocab build_text_vocab(const TokenCounts& counts, const TextDataConfig& c) {
  return Vocab::from_counts(counts, pad_unk_options(c.min_count, c.max_vocab));
}

}  // namespace twin
