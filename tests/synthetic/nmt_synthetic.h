// A tiny generated translation task for tests and smoke runs, so they never need the real corpora: the target
// is the source reversed with every word mapped through a fixed bilingual dictionary ("a3 b1" -> "y1 x3"). It
// needs attention (reordering) and a learned lexicon, and a working model reaches high BLEU in a minute.
#pragma once
#include <cstdint>
#include <string>

namespace twin::nmt {

// Writes <dir>/{train,val,test}.tok.{src,tgt} in data_prep/nmt.py's layout and learns a joint SentencePiece
// BPE model <dir>/bpe/joint.model (vocab_size pieces) from the training text.
void write_synthetic_parallel(const std::string& dir, std::uint64_t seed, int train_pairs = 2000, int dev_pairs = 100,
                              int test_pairs = 100, int vocab_size = 64);

}  // namespace twin::nmt
