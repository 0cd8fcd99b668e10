// A generated sentiment corpus for smoke runs and tests (CI may have no SST data), written as
// data_prep/sst.py writes real data ({train,dev,test}.txt, `<label> <tokens>` per line). A sentence is 4-12
// filler words with 1, 3 or 5 sentiment words among them (positive: good great fine; negative: bad awful
// dull); the label is the majority polarity (1 positive, 0 negative), so it needs every sentiment word of the
// sentence, wherever it is, and never ties.
#pragma once
#include <cstdint>
#include <string>

namespace twin::classify {

void write_synthetic_sentiment(const std::string& dir, std::uint64_t seed, int train = 2000, int dev = 200,
                               int test = 200);

}  // namespace twin::classify
