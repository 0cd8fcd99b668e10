// The two vocabularies of a model that embeds each word and also spells it out with a character RNN (ner's
// tagger, rc's R-Net): the words and the characters, each with <pad> = 0 and <unk> = 1 (an unknown word or
// character maps to <unk>). A trained run keeps them beside its model as vocab.words.txt and vocab.chars.txt, and
// its prediction mode loads them back with the same ids.
#pragma once
#include <string>

#include "data/vocab.h"

namespace twin {

struct WordCharVocabs {
  static inline const VocabOptions kOptions = pad_unk_options();
  static constexpr const char* kWordsFile = "vocab.words.txt";
  static constexpr const char* kCharsFile = "vocab.chars.txt";

  Vocab words{kOptions};
  Vocab chars{kOptions};

  // <dir>/vocab.words.txt and <dir>/vocab.chars.txt (a type deriving this that keeps more hides both and calls
  // them: train/kept_vocabs.h's WordCharParts calls the derived type's).
  void save_kept(const std::string& dir) const {
    words.save(dir + "/" + kWordsFile);
    chars.save(dir + "/" + kCharsFile);
  }
  void load_kept(const std::string& dir) {
    words = Vocab::load(dir + "/" + kWordsFile, kOptions);
    chars = Vocab::load(dir + "/" + kCharsFile, kOptions);
  }
};

}  // namespace twin
