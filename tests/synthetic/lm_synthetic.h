// A small synthetic corpus with learnable structure (a tiny grammar), written by the tests and smoke runs
// so they never need the real corpora.
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace twin::lm {

// Writes <dir>/{train,valid,test}.txt with the given numbers of sentences.
void write_synthetic_corpus(const std::string& dir, std::uint64_t seed, int train_lines = 400, int valid_lines = 60,
                            int test_lines = 60);

// experiments/smoke/lm_atr.json reading data from data_dir and writing its run to out_dir (the smoke and
// command-line tests share it).
nlohmann::json lm_smoke_config(const std::string& data_dir, const std::string& out_dir);

}  // namespace twin::lm
