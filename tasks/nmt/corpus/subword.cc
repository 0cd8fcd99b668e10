#include "corpus/subword.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <fstream>

#include "base/check.h"

namespace twin::nmt {

Subword::Subword(const std::string& model_path) : path_(model_path) {
  TW_CHECK(std::ifstream(model_path).good(), "subword model ", model_path,
           " not found (HINT: python3 data_prep/nmt.py learns it; data.bpe names it relative to data.dir)");
  sp_ = std::make_unique<sentencepiece::SentencePieceProcessor>();
  // SentencePiece reports most bad models in its status, but some throw: a piece that starts with a NUL byte
  // makes the trie builder (darts_clone) throw "zero-length key" (found by tests/fuzz/fuzz_nmt).
  sentencepiece::util::Status st;
  try {
    st = sp_->Load(model_path);
  } catch (const std::exception& e) {
    TW_FAIL("subword model ", model_path, ": SentencePiece cannot load it (", e.what(),
            ") (HINT: learn it with data_prep/nmt.py)");
  }
  TW_CHECK(st.ok(), "subword model ", model_path, ": SentencePiece cannot load it (", st.ToString(), ")");
  TW_CHECK(sp_->pad_id() == kPad && sp_->bos_id() == kBos && sp_->eos_id() == kEos && sp_->unk_id() == kUnk,
           "subword model ", model_path, ": special ids pad/bos/eos/unk are ", sp_->pad_id(), "/", sp_->bos_id(), "/",
           sp_->eos_id(), "/", sp_->unk_id(), ", expected 0/1/2/3 (HINT: learn it with data_prep/nmt.py)");
}

Subword::~Subword() = default;
Subword::Subword(Subword&&) noexcept = default;
Subword& Subword::operator=(Subword&&) noexcept = default;

Ids Subword::encode(const std::string& text) const {
  TW_CHECK(sp_, "subword model not loaded");
  std::vector<int> ids;
  const auto st = sp_->Encode(text, &ids);
  TW_CHECK(st.ok(), path_, ": cannot encode '", text.substr(0, 80), "': ", st.ToString());
  return Ids(ids.begin(), ids.end());
}

std::string Subword::decode(const Ids& ids) const {
  TW_CHECK(sp_, "subword model not loaded");
  const int V = size();
  std::vector<int> v;
  v.reserve(ids.size());
  for (auto id : ids) {
    TW_CHECK(id >= 0 && id < V, path_, ": cannot decode id ", id, " (vocabulary ", V, ")");
    v.push_back(id);
  }
  std::string out;
  const auto st = sp_->Decode(v, &out);
  TW_CHECK(st.ok(), path_, ": cannot decode: ", st.ToString());
  return out;
}

std::vector<std::string> Subword::pieces(const std::string& text) const {
  TW_CHECK(sp_, "subword model not loaded");
  std::vector<std::string> p;
  const auto st = sp_->Encode(text, &p);
  TW_CHECK(st.ok(), path_, ": cannot encode: ", st.ToString());
  return p;
}

std::string Subword::piece(std::int32_t id) const {
  TW_CHECK(sp_ && id >= 0 && id < size(), path_, ": no piece with id ", id);
  return sp_->IdToPiece(id);
}

int Subword::size() const { return sp_ ? sp_->GetPieceSize() : 0; }

void learn_subword_model(const std::vector<std::string>& inputs, const std::string& model_prefix, int vocab_size,
                         const std::string& model_type) {
  std::string files;
  for (const auto& f : inputs) files += (files.empty() ? "" : ",") + f;
  const std::string args = "--input=" + files + " --model_prefix=" + model_prefix + " --vocab_size=" +
                           std::to_string(vocab_size) + " --model_type=" + model_type +
                           " --character_coverage=1.0 --pad_id=0 --bos_id=1 --eos_id=2 --unk_id=3"
                           " --normalization_rule_name=identity --input_sentence_size=0"
                           " --shuffle_input_sentence=false --num_threads=1 --minloglevel=2"
                           " --hard_vocab_limit=false";
  const auto st = sentencepiece::SentencePieceTrainer::Train(args);
  TW_CHECK(st.ok(), "learning a subword model from ", files, " failed: ", st.ToString());
}

}  // namespace twin::nmt
