// A tiny generated translation task for tests and smoke runs, so they never need the real corpora: the target
// is the source reversed with every word mapped through a fixed bilingual dictionary ("a3 b1" -> "y1 x3"). It
// needs attention (reordering) and a learned lexicon, and a working model reaches high BLEU in a minute.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace twin::nmt {

// Writes <dir>/{train,val,test}.tok.{src,tgt} in data_prep/nmt.py's layout and learns a joint SentencePiece
// BPE model <dir>/bpe/joint.model (vocab_size pieces) from the training text.
void write_synthetic_parallel(const std::string& dir, std::uint64_t seed, int train_pairs = 2000, int dev_pairs = 100,
                              int test_pairs = 100, int vocab_size = 64);

// A corpus with a large translation task's SHAPE, for speed measurements only (its content is random): every
// sentence has `mean_len` +- 40 % words (WMT14 En-De averages about 26 per side), drawn half from a Zipf law and
// half uniformly over `vocab_size` + 4,000 word types per language, so that a word-level SentencePiece model of
// `vocab_size` pieces per side (<dir>/spm/{src,tgt}.model, one piece per frequent word) reaches its size.
// Layout as data_prep/nmt.py: <dir>/{train,val,test}.tok.{src,tgt}.
void write_shaped_parallel(const std::string& dir, std::uint64_t seed, int train_pairs, int test_pairs,
                           int vocab_size, int mean_len);

// Learns a SentencePiece BPE model from text files with the settings data_prep/nmt.py gives spm_train
// (pad 0, bos 1, eos 2, unk 3, identity normalisation, all sentences, deterministic).
void learn_subword_model(const std::vector<std::string>& inputs, const std::string& model_prefix, int vocab_size);

}  // namespace twin::nmt
