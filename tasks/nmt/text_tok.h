// Text processing for MT evaluation (bleu.h uses it):
//  - tokenize_13a: sacreBLEU's default "13a" tokenizer, which reproduces mteval-v13a.pl. Follows
//    sacrebleu/tokenizers/tokenizer_13a.py and tokenizer_re.py (github.com/mjpost/sacrebleu, 2.x) exactly:
//    the same replacements in the same order, and the four regex passes emulated by a byte scanner with
//    Python's left-to-right, non-overlapping re.sub semantics (std::regex was not needed).
//  - detokenize: a Moses-style detokenizer for the output of a model trained on Multi30k's
//    *.lc.norm.tok.{en,de} files (lowercased, normalize-punctuation.perl, tokenizer.perl with its XML escapes).
//    Follows mosesdecoder's scripts/tokenizer/detokenizer.perl for en, plus rules for apostrophes that Moses
//    lacks (listed in text_tok.cc); it is not a byte-for-byte port.
//  - UTF-8 helpers: Python-compatible whitespace splitting and lowercasing, so scores match sacreBLEU on
//    German text (Ü, ß, non-breaking spaces).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace twin::nmt {

// Splits on whitespace as Python's str.split() does: ASCII \t \n \v \f \r and space, \x1c-\x1f, and the
// Unicode spaces U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.
// The views point into s. Unlike twin::split_whitespace (data/text.h, which keeps U+00A0 as data on purpose):
// sacreBLEU splits on U+00A0, and Multi30k's raw references contain it ("120\u00a0cm").
std::vector<std::string_view> split_unicode_whitespace(std::string_view s);

// Removes the whitespace split_unicode_whitespace() splits on at both ends (Python's str.strip()).
std::string_view strip_unicode_whitespace(std::string_view s);

// Lowercases UTF-8 text like Python's str.lower() for ASCII, Latin-1, Latin Extended-A, Cyrillic
// (U+0400-U+042F) and U+1E9E (capital sharp s); other characters (Greek, whose final-sigma rule Python
// applies, and the rest) and invalid bytes are left unchanged.
std::string utf8_lower(std::string_view s);

// sacreBLEU's "13a" tokenisation of one line; tokens are joined by single spaces, no leading/trailing space.
// Note that 13a unescapes only &quot; &amp; &lt; &gt; (not &apos;), as sacreBLEU does.
std::string tokenize_13a(std::string_view line);

// Undoes tokenizer.perl's escaping, in detokenizer.perl's order: &bar; &#124; -> |, &lt; &gt;, &bra; &#91; -> [,
// &ket; &#93; -> ], &quot; -> ", &apos; -> ', and &amp; -> & last (so "&amp;lt;" becomes "&lt;", not "<").
std::string moses_unescape(std::string_view s);

// Joins Moses-tokenised text into normal text; lang is "en", "de", or anything else (language-neutral rules
// only); the rules and where they come from are listed above its definition. Whitespace runs in the input
// count as one separator; the result has no leading or trailing space. Case is left alone (Multi30k's tok
// files, hence the model's output, are lowercase). Measured on Multi30k val, detokenize(tok) against the
// lowercased raw file: en 1013/1014 lines identical, sacreBLEU 100.00; de 1010/1014, 99.85 (the rest: German
// „“ quotes that normalize-punctuation.perl turned into ", and "now..." for "now ..."); test_bleu.cc checks it.
std::string detokenize(std::string_view line, std::string_view lang);

}  // namespace twin::nmt
