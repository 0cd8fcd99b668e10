// A small synthetic corpus with learnable structure (a tiny grammar), written by the tests and smoke runs
// so they never need the real corpora.
#pragma once
#include <cstdint>
#include <string>

namespace twin::lm {

// Writes <dir>/{train,valid,test}.txt with the given numbers of sentences.
void write_synthetic_corpus(const std::string& dir, std::uint64_t seed, int train_lines = 400, int valid_lines = 60,
                            int test_lines = 60);

}  // namespace twin::lm
