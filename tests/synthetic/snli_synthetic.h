// A generated inference corpus for smoke runs and tests (CI may have no SNLI data), written as
// data_prep/snli.py writes real data ({train,dev,test}.tsv). The label is a function of the pair that needs
// the premise: entailment = the hypothesis is words of the premise, contradiction = "not" and words of the
// premise, neutral = words that are not in the premise.
#pragma once
#include <cstdint>
#include <string>

namespace twin::snli {

void write_synthetic_snli(const std::string& dir, std::uint64_t seed, int train = 4000, int dev = 200, int test = 200);

}  // namespace twin::snli
