// A generated segmentation corpus for smoke runs and tests (CI has no SIGHAN data): a fixed lexicon of
// 1-4 character "words" over CJK code points, sentences drawn from it with Zipf-like word frequencies, written
// exactly as data_prep/cws.py writes real data ({train,dev,test}.seg/.bmes, train_words.txt). Characters are
// shared between words, so a word's boundaries depend on its context, as in Chinese.
#pragma once
#include <cstdint>
#include <string>

namespace twin::cws {

void write_synthetic_cws(const std::string& dir, std::uint64_t seed, int train = 600, int dev = 100, int test = 100);

}  // namespace twin::cws
