// The vocabularies a RunParts keeps beside its model (train/trained_run.h), for the two kinds several tasks share,
// written once: a Parts derives one of these beside RunPartsOf and gets save_vocabs; its load_vocabs says only
// what differs (the mode that loads, and where and how a run that predates the files rebuilds them).
//   OneVocabParts               one word Vocab, kept as vocab.txt (classify, snli, lm);
//   WordCharParts<Vocabs>       a WordCharVocabs (data/word_char_vocabs.h) or a type deriving it that hides
//                               save_kept / load_kept to keep more files (ner's tags), kept as its files (ner, rc).
#pragma once
#include <string>

#include "data/vocab.h"
#include "data/word_char_vocabs.h"
#include "train/trained_run.h"

namespace twin {

struct OneVocabParts {
  static constexpr const char* kVocabFile = "vocab.txt";

  template <class Data>
  static void save_vocabs(const Vocab& v, const Data&, const std::string& run_dir) {
    v.save(run_dir + "/" + kVocabFile);
  }

 protected:
  // <run_dir>/vocab.txt read with `options` (those it was built with), or rebuild() (load_run_vocab).
  template <class Rebuild>
  static Vocab load_kept_vocab(const std::string& run_dir, const char* mode, const std::string& source,
                               const VocabOptions& options, Rebuild rebuild) {
    return load_run_vocab(
        run_dir, mode, kVocabFile, "vocabulary", source, [&] { return Vocab::load(run_dir + "/" + kVocabFile, options); },
        rebuild);
  }
};

template <class Vocabs>
struct WordCharParts {
  template <class Data>
  static void save_vocabs(const Vocabs& v, const Data&, const std::string& run_dir) {
    v.save_kept(run_dir);
  }

 protected:
  // The run's kept files (Vocabs::load_kept), or rebuild() (load_run_vocab).
  template <class Rebuild>
  static Vocabs load_kept_vocabs(const std::string& run_dir, const char* mode, const std::string& source,
                                 Rebuild rebuild) {
    return load_run_vocab(
        run_dir, mode, Vocabs::kWordsFile, "vocabularies", source,
        [&] {
          Vocabs v;
          v.load_kept(run_dir);
          return v;
        },
        rebuild);
  }
};

}  // namespace twin
