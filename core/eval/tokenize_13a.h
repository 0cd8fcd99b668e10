// sacreBLEU's default "13a" tokenizer, which reproduces mteval-v13a.pl; eval/bleu.h applies it for tokenize
// "13a". Follows sacrebleu/tokenizers/tokenizer_13a.py and tokenizer_re.py (github.com/mjpost/sacrebleu, 2.x)
// exactly: the same replacements in the same order, and the four regex passes emulated by a byte scanner with
// Python's left-to-right, non-overlapping re.sub semantics (std::regex was not needed). Whitespace is Python's
// (data/unicode_text.h), so scores match sacreBLEU on German text too.
#pragma once
#include <string>
#include <string_view>

namespace twin {

// sacreBLEU's "13a" tokenisation of one line; tokens are joined by single spaces, no leading/trailing space.
// Note that 13a unescapes only &quot; &amp; &lt; &gt; (not &apos;), as sacreBLEU does.
std::string tokenize_13a(std::string_view line);

}  // namespace twin
