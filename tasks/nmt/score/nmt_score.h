// Evaluation of NMT output, apart from the model (model/) and decoding (decode/): a split's translations scored
// with the two BLEU flavours of core/eval/bleu.h, sacreBLEU's after detokenising (text_tok.h). Training scores
// its dev and test splits through it, and `nmt translate --split` prints and saves the same numbers.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "corpus/nmt_data.h"

namespace twin::nmt {

// The two BLEU flavours of a split's translations: "bleu" on the tokenised references (multi-bleu.perl
// convention, lowercased) and, when data_prep wrote {split}.raw.{tgt}, "sacrebleu" (13a) on the detokenised
// output against them (lowercased for a model trained on the lowercased tok form). Each with _str and
// _signature. `detok` (optional) receives the detokenised lines (empty when there are no raw references).
nlohmann::json score_split(const NmtDataConfig& c, const std::string& split, const std::vector<std::string>& hyps,
                           const std::vector<std::string>& refs, std::vector<std::string>* detok = nullptr);

}  // namespace twin::nmt
