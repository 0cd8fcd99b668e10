// CWS data as data_prep/cws.py writes it (data/cws/<corpus>_<protocol>/): per split a `.seg` file (one
// sentence per line, words separated by spaces) and a `.bmes` file (the tag letters of that line, one per
// character), and `train_words.txt`, the word list OOV is counted against. Both files of a split are read and
// checked against each other line by line, so a tag file that does not belong to its text is an error naming
// the line, never a silent misalignment.
#pragma once
#include <string>
#include <vector>

#include "base/config_table.h"
#include "base/rng.h"
#include "data/batch.h"
#include "data/batching_config.h"
#include "data/split_names.h"
#include "data/vocab.h"
#include "base/json_reader.h"

namespace twin::cws {

struct CwsDataConfig : BatchingConfig, SplitNames {   // split names: <dir>/<name>.seg and .bmes
  CwsDataConfig() : BatchingConfig(128) {}  // sentences per training batch (the paper)
  std::string dir;                          // e.g. data/cws/msr_inhouse
  std::string protocol;                     // a plain name for tables, e.g. "in-house (b): gold test split 80/10/10"
  std::string words = "train_words.txt";    // OOV reference list
  int min_count = 1;                        // training characters seen fewer times map to <unk>
  bool bigrams = false;                     // also feed character bigrams (c_i c_{i+1})
};
const ConfigTable<CwsDataConfig>& cws_data_table();
CwsDataConfig parse_cws_data(JsonReader& r);
nlohmann::json to_json(const CwsDataConfig& c);

struct Sentence {
  std::vector<std::string> chars;   // UTF-8 characters
  std::vector<int> tags;            // BMES per character
  std::vector<std::string> words;   // the gold segmentation
};

// The sentences of one split: `<dir>/<split>.seg` and `<dir>/<split>.bmes`. Errors name file and line: a
// missing file (with how to make it: python3 data_prep/cws.py), invalid UTF-8, an empty line, a tag that is
// not B/M/E/S, a tag line whose length differs from the characters, tags that disagree with the words, or
// files with different line counts.
std::vector<Sentence> read_split(const CwsDataConfig& c, const std::string& split);

// Character (and bigram) ids, built from the training split.
struct CwsVocab {
  Vocab chars{pad_unk_options()};
  Vocab bigrams{pad_unk_options()};
};
CwsVocab build_vocab(const std::vector<Sentence>& train, const CwsDataConfig& c);

// Bigram i of a sentence is chars[i] + chars[i+1] (the last one pairs with "</s>").
std::vector<std::string> char_bigrams(const std::vector<std::string>& chars);

// A padded batch of sentences `index` (time-major, run_rnn's layout) with the gold tags.
struct CwsBatch {
  SeqBatch chars;                        // [T, B] character ids, mask, lengths
  Ids bigram_flat;                       // t*B + b, empty without bigrams
  std::vector<std::vector<int>> gold;    // B tag sequences
  Index characters() const { return chars.tokens(); }
};
CwsBatch make_batch(const std::vector<Sentence>& data, const std::vector<int>& index, const CwsVocab& v,
                    bool bigrams);
// A sentence's length for batching (training windows and evaluation, data/batch.h): its characters.
inline std::size_t sentence_length(const Sentence& s) { return s.chars.size(); }

}  // namespace twin::cws
