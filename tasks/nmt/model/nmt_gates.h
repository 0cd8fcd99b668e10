// Decoder gate analysis for the ATR paper's Fig. 3 and Fig. 4 on a test set, with the reference as the
// decoder's input (teacher forcing, so every system is measured on the same target words):
//  - per target position, the mean gate values of Cell1 (s̃_j = Cell1(s_{j-1}, y_{j-1})) and Cell2
//    (s_j = Cell2(s̃_j, c_j)) and the Pearson r between their input and forget gates (paper: r = -0.9819 for
//    its ATR decoder on newstest2014);
//    (DTMT: "cell1" is the query transition, "cell2" the decoder transition, T-GRU j's gates as "t<j>/z");
//  - for ATR and LRN decoders of RNNSearch, the contribution weight of every earlier target word to the decoder state.
//    Unrolling the two levels, s_j = f2_j ⊙ i1_j ⊙ p1(y_{j-1}) + i2_j ⊙ p2(c_j) + (f2_j ⊙ f1_j) ⊙ s_{j-1},
//    so word y_{k-1} enters s_j with g_k = (f2_k ⊙ i1_k) ⊙ Π_{l=k+1..j} (f2_l ⊙ f1_l): Eq. 10 with the gate
//    products i = f2 ⊙ i1 and f = f2 ⊙ f1 (exact for identity-output ATR and for LRN's state).
#pragma once
#include <nlohmann/json.hpp>

#include "corpus/nmt_batch.h"
#include "corpus/subword.h"
#include "model/nmt_model.h"

namespace twin::nmt {

nlohmann::json decoder_gate_statistics(const NmtModel& model, const Parallel& data, const Subword& tgt,
                                       int dependency_sentences, int batch = 50);

}  // namespace twin::nmt
