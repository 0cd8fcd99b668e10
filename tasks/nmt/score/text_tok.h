// Text processing for NMT's scoring: a Moses-style detokenizer for the output of a model trained on Multi30k's
// *.lc.norm.tok.{en,de} files (lowercased, normalize-punctuation.perl, tokenizer.perl with its XML escapes), so
// that sacreBLEU (core/eval/bleu.h, tokenize 13a) can score it against the raw references. Follows mosesdecoder's
// scripts/tokenizer/detokenizer.perl for en, plus rules for apostrophes that Moses lacks (listed in
// text_tok.cc); it is not a byte-for-byte port. Whitespace and UTF-8 are handled as Python does
// (core/data/unicode_text.h).
#pragma once
#include <string>
#include <string_view>

namespace twin::nmt {

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
