#include "rc_tokenize.h"

#include "data/unicode_text.h"
#include "eval/squad_eval.h"

namespace twin::rc {

Tokens squad_tokenize(std::string_view text) {
  Tokens out;
  auto word_char = [&](std::size_t i, std::size_t& len) {
    char32_t cp;
    len = utf8_decode(text, i, cp);
    return cp != '_' && !(cp == 0xFFFD && len == 1) && is_squad_word_char(cp);
  };
  std::size_t i = 0;
  while (i < text.size()) {
    if (const std::size_t ws = unicode_whitespace_length(text, i); ws > 0) {
      i += ws;
      continue;
    }
    const std::size_t begin = i;
    std::size_t len = 0;
    if (word_char(i, len)) {
      i += len;
      while (i < text.size() && unicode_whitespace_length(text, i) == 0 && word_char(i, len)) i += len;
    } else {
      i += len;   // one character of its own
    }
    out.tokens.emplace_back(text.substr(begin, i - begin));
    out.offsets.push_back({static_cast<int>(begin), static_cast<int>(i)});
  }
  return out;
}

}  // namespace twin::rc
