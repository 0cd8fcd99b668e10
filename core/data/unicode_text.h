// UTF-8 text helpers that behave as Python's str methods do, for code that must agree with a Python reference
// byte for byte: the MT metrics (eval/bleu.h follows sacreBLEU) and NMT's Moses-style detokenizer. They are
// lenient, unlike data/text.h's strict readers: an invalid byte is data here, copied through unchanged.
//  - split_unicode_whitespace / strip_unicode_whitespace: str.split() / str.strip() with no argument;
//  - utf8_lower: str.lower() on the blocks German, French and Russian text needs (Ü, ß, non-breaking spaces);
//  - utf8_decode, utf8_append, replace_all (replace_in_order), join_with_spaces: the pieces the tokenizers are built from.
#pragma once
#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace twin {

// Decodes the code point starting at s[i] into cp and returns its byte length. A byte that starts no valid
// sequence by data/text.h's table (utf8_sequence_length: truncated, overlong, a surrogate, above U+10FFFF)
// decodes alone as cp = 0xFFFD, so callers copy such bytes through unchanged.
std::size_t utf8_decode(std::string_view s, std::size_t i, char32_t& cp);

// Splits on whitespace as Python's str.split() does: ASCII \t \n \v \f \r and space, \x1c-\x1f, and the
// Unicode spaces U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.
// The views point into s. Unlike twin::split_whitespace (data/text.h, which keeps U+00A0 as data on purpose):
// sacreBLEU splits on U+00A0, and Multi30k's raw references contain it ("120\u00a0cm").
std::vector<std::string_view> split_unicode_whitespace(std::string_view s);

// Byte length of the whitespace character starting at s[i] (the set above: Python's str.isspace(), which is also
// what \s matches in a Python str pattern), or 0 when s[i] starts none.
std::size_t unicode_whitespace_length(std::string_view s, std::size_t i);

// Removes the whitespace split_unicode_whitespace() splits on at both ends (Python's str.strip()).
std::string_view strip_unicode_whitespace(std::string_view s);

// Lowercases UTF-8 text like Python's str.lower() for ASCII, Latin-1, Latin Extended-A, Cyrillic
// (U+0400-U+042F) and U+1E9E (capital sharp s); other characters (Greek, whose final-sigma rule Python
// applies, and the rest) and invalid bytes are left unchanged.
std::string utf8_lower(std::string_view s);

// Appends the UTF-8 encoding of the code point cp (at most U+10FFFF, not a surrogate) to out.
void utf8_append(std::string& out, char32_t cp);

// Replaces every occurrence of `from` in s by `to`, left to right, non-overlapping (Python's str.replace).
void replace_all(std::string& s, std::string_view from, std::string_view to);

// replace_all for each {from, to} in the order given, each on the previous one's result: a chain of str.replace
// calls, as the reference tokenizers unescape entities (the order is theirs: "&amp;lt;" gives "&lt;" when "&amp;"
// comes after "&lt;", and "<" when before).
struct Replacement {
  std::string_view from, to;
};
void replace_in_order(std::string& s, std::initializer_list<Replacement> replacements);

// The parts joined by single spaces (Python's ' '.join(parts)).
std::string join_with_spaces(const std::vector<std::string_view>& parts);

}  // namespace twin
