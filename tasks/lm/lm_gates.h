// Gate statistics of a trained LM on the test set (--dump-gates N), for the ATR paper's Fig. 3 and 4:
//  - per position within a sentence, the mean value of each gate of the top layer (over sentences and
//    units), and the Pearson r between the input-like and forget-like gate (ATR/LRN/LSTM/RAN i and f;
//    GRU z and r) over the position-wise means and over every (unit, position) value;
//  - for ATR and LRN, the contribution weights g_k (ATR Eq. 10) of every earlier word in the state after
//    each word of the first N test sentences (mean over units), with the sentences' words.
// Each sentence is run alone from a zero state (no state carried from the previous sentence).
#pragma once
#include <nlohmann/json.hpp>

#include "lm_data.h"
#include "lm_model.h"
#include "rnn/gate_stats.h"   // pearson_r

namespace twin::lm {

nlohmann::json gate_statistics(const LmModel& model, const LmCorpus& corpus, int dependency_sentences,
                               int max_positions = 60);

}  // namespace twin::lm
