// NER data: CoNLL-style column files, one token per line with its tag in the last column, sentences separated
// by blank (or whitespace-only) lines. This reads CoNLL-2003 unchanged (`token POS chunk tag`, `-DOCSTART-`
// lines, IOB1 or BIO tags) and two-column files such as WNUT-17 (`token<TAB>tag`, BIO). Tags may be in any of
// IOB1, BIO (IOB2) and BIOES: the entities are read by conlleval's rules (eval/spans.h), so the scheme of a
// file need not be declared; training uses data.scheme (BIOES by default, as Lample et al. 2016).
// data_prep/ner.py writes <dir>/{train,dev,test}.conll from the raw corpora.
#pragma once
#include <string>
#include <vector>

#include "base/rng.h"
#include "data/labelled_text.h"
#include "data/vocab.h"
#include "data/word_char_vocabs.h"
#include "eval/spans.h"
#include "ner_batch.h"

namespace twin::ner {

struct NerDataConfig {
  TextDataConfig text{10};            // dir, protocol, split names, lowercase (words only), min_count, embeddings,
                                      // batch_size (sentences), maxi_batch, eval_batch_size
  std::string extension = "conll";    // <dir>/<split>.<extension>
  TagScheme scheme = TagScheme::kBioes;   // the tags the CRF learns and predicts
  int max_word_chars = 30;            // characters of a word fed to the character BiRNN (the first ones); 0 = all
  double singleton_unk = 0.5;         // training: a word seen once in training is fed as <unk> with this
                                      // probability, so <unk> learns what unseen words look like (Lample et al.)
};
const ConfigTable<NerDataConfig>& ner_data_table();
NerDataConfig parse_ner_data(JsonReader& r);
nlohmann::json to_json(const NerDataConfig& c);

struct Sentence {
  std::vector<std::string> tokens;
  std::vector<std::string> tags;   // as in the file (any scheme); gold for scoring
  long line = 0;                   // the file line of the first token
};

// The sentences of one column file. Errors name file and line: a missing file (with how to make it), invalid
// UTF-8, a line with one column or with a different number of columns than the file's first token line, a tag
// that is not O or B-/I-/E-/S- plus a type, or a file without sentences.
std::vector<Sentence> read_conll(const std::string& path);
// <dir>/<split>.<extension>, with a hint naming data_prep/ner.py when it is missing.
std::vector<Sentence> read_split(const NerDataConfig& c, const std::string& split);

// Word ids (lowercased when data.lowercase), character ids (of the words as written) and tag ids, from the
// training split. Tags: O, then the scheme's prefixes for every entity type seen in training, sorted.
struct NerVocab : WordCharVocabs {
  static constexpr const char* kTagsFile = "tags.txt";   // one tag per line in id order, "O" first

  std::vector<std::string> tags;
  std::vector<bool> singleton;   // by word id: seen exactly once in training
  int tag_id(const std::string& tag) const;   // -1 when absent
  // The words' and characters' files (WordCharVocabs) and tags.txt, in <dir>: what a run keeps for `ner tag`.
  void save_kept(const std::string& dir) const;
  void load_kept(const std::string& dir);
};
NerVocab build_vocab(const std::vector<Sentence>& train, const NerDataConfig& c);

// Sentences `index` of `data` as a padded batch; with_gold: the tags converted to data.scheme and mapped to
// ids (a training tag the vocabulary lacks is an Error; dev and test are scored as strings and need none).
// With unk_rng (training), singleton words become <unk> with probability data.singleton_unk.
NerBatch make_batch(const std::vector<Sentence>& data, const std::vector<int>& index, const NerVocab& v,
                    const NerDataConfig& c, bool with_gold, Rng* unk_rng = nullptr);
// A sentence's length for batching (training windows and evaluation, data/batch.h): its tokens.
inline std::size_t sentence_length(const Sentence& s) { return s.tokens.size(); }

}  // namespace twin::ner
