// What `nmt translate` writes of its translations (nmt_cli.cc): the text (the best translation per line, or the
// n best as Moses-style "i ||| text ||| score" lines) and --attention's JSON of the best translation's weights.
#pragma once
#include <string>
#include <vector>

#include "corpus/subword.h"
#include "decode/translator.h"

namespace twin::nmt {

// One line per sentence (nbest == 1: the best translation's text), else the nbest hypotheses of each sentence as
// "<sentence index from 0> ||| <text> ||| <score, 6 decimals>".
std::string translation_text(const std::vector<Translation>& tr, int nbest, const Subword& tgt);

// --attention FILE: per sentence, the source and target pieces (each ending in "</s>") and the best translation's
// attention weights [target][source].
void write_attention(const std::string& path, const std::vector<std::string>& lines, const std::vector<Translation>& tr,
                     const Subword& src, const Subword& tgt);

}  // namespace twin::nmt
