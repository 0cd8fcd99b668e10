// Subword segmentation with Debian's SentencePiece library (Kudo & Richardson 2018), model_type bpe, learned by
// data_prep/nmt.py with spm_train. A model maps text to piece ids and back; with the identity normalisation
// rule that data_prep uses, decode(encode(s)) == s for any whitespace-normalised line (tested).
//
// Ids: pad 0, bos 1, eos 2, unk 3 (data_prep passes these to spm_train). Loading checks them, because the model
// and the batching code must agree on the pad id and the decoder on BOS/EOS.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "base/real.h"
#include "corpus/nmt_batch.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace twin::nmt {

class Subword {
 public:
  Subword() = default;
  explicit Subword(const std::string& model_path);   // throws twin::Error naming the path and the problem
  ~Subword();
  Subword(Subword&&) noexcept;
  Subword& operator=(Subword&&) noexcept;

  Ids encode(const std::string& text) const;          // piece ids, no BOS/EOS
  std::string decode(const Ids& ids) const;           // stops at nothing: callers strip BOS/EOS/pad
  std::vector<std::string> pieces(const std::string& text) const;
  std::string piece(std::int32_t id) const;           // the piece string of one id ("▁word", "ing")
  int size() const;                                   // vocabulary size (pieces)
  const std::string& path() const { return path_; }
  bool loaded() const { return sp_ != nullptr; }

 private:
  std::unique_ptr<sentencepiece::SentencePieceProcessor> sp_;
  std::string path_;
};

// Learns a SentencePiece model (model_type "bpe" or "word") from text files, writing <model_prefix>.model, with
// the settings data_prep/nmt.py gives spm_train (pad 0, bos 1, eos 2, unk 3, identity normalisation, all
// sentences, deterministic), so Subword loads it. It lives here, beside the class that reads its output and
// checks those ids, because two generated corpora use it: the tests' toy corpus (tests/synthetic/nmt_synthetic.h,
// BPE) and the speed benchmark's shaped corpus (tasks/speed/nmt_shaped_corpus.h, word-level).
void learn_subword_model(const std::vector<std::string>& inputs, const std::string& model_prefix, int vocab_size,
                         const std::string& model_type = "bpe");

}  // namespace twin::nmt
