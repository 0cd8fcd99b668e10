// The corpus of `speed nmt --shaped-corpus` (nmt_bench.h): one with a large translation task's SHAPE, for
// speed measurements only (its content is random), so the speed of a model whose corpus we do not have (the
// ATR paper's WMT14 size) is measured rather than extrapolated.
#pragma once
#include <cstdint>
#include <string>

namespace twin::speed {

// Every sentence has `mean_len` +- 40 % words (WMT14 En-De averages about 26 per side), drawn half from a Zipf
// law and half uniformly over `vocab_size` + 4,000 word types per language, so that a word-level SentencePiece
// model of `vocab_size` pieces per side (<dir>/spm/{src,tgt}.model, one piece per frequent word) reaches its
// size. Layout as data_prep/nmt.py: <dir>/{train,val,test}.tok.{src,tgt}; val and test have test_pairs each.
void write_shaped_parallel(const std::string& dir, std::uint64_t seed, int train_pairs, int test_pairs,
                           int vocab_size, int mean_len);

}  // namespace twin::speed
