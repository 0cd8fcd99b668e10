// What the labelled-text tasks (snli: sentence pairs, classify: single sentences) share about their data:
// the common keys of the experiment's `data` object (TextDataConfig), the word vocabulary of the training
// text, ASCII lowercasing and GloVe-format pretrained word embeddings. Each task
// keeps its own file format, labels and extra keys (classify's num_labels) on top of this.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/config_table.h"
#include "data/batching_config.h"
#include "data/split_names.h"
#include "base/rng.h"
#include "data/vocab.h"
#include "base/json_reader.h"

namespace twin {

class Embedding;   // nn/embedding.h; only labelled_text.cc needs its definition

struct TextDataConfig : BatchingConfig, SplitNames {   // split names: <dir>/<name>.<task's extension>
  explicit TextDataConfig(int default_batch_size) : BatchingConfig(default_batch_size) {}

  std::string dir;        // e.g. data/snli/inhouse, data/sst/sst2
  std::string protocol;   // a plain description for tables, e.g. "SST-2 sentence level, Kim (2014) splits"
  bool lowercase = false;   // ASCII-lowercase every token when reading
  int min_count = 1;        // training words seen fewer times map to <unk>
  int max_vocab = 0;        // at most this many vocabulary entries, the 2 specials included; 0 = no limit
  std::string embeddings;   // GloVe text file for the word embeddings, "" = none (random initialisation)
};

// Adds the shared keys to a task's `data` table; `at` reaches the TextDataConfig inside the task's struct (its
// base class or a member). dir and protocol are required.
template <class S>
void add_text_data_rows(ConfigTable<S>& t, std::function<TextDataConfig&(S&)> at) {
  auto field = [at](auto TextDataConfig::*m) {
    return [at, m](S& s) -> auto& { return at(s).*m; };
  };
  using C = TextDataConfig;
  t.required_text("dir", field(&C::dir), "folder of the prepared splits")
      .required_text("protocol", field(&C::protocol), "a plain description for tables, e.g. \"SST-2 sentence level\"");
  add_split_rows<S>(t, [at](S& s) -> SplitNames& { return at(s); },
                    "training split name: <dir>/<name>.<the task's extension>");
  t.flag("lowercase", field(&C::lowercase), "ASCII-lowercase every token when reading")
      .integer("min_count", field(&C::min_count), 1, 1 << 30, "training words seen fewer times map to <unk>")
      .integer("max_vocab", field(&C::max_vocab), 0, 1 << 30, "vocabulary entries at most, the 2 specials included; 0 = no limit")
      .text("embeddings", field(&C::embeddings), "GloVe-format text file of word vectors; \"\" = random initialisation");
  add_batching_rows<S>(t, [at](S& s) -> BatchingConfig& { return at(s); }, "examples", "evaluation");
  t.rule([at](const S& s) -> std::pair<std::string, std::string> {
    const int v = at(const_cast<S&>(s)).max_vocab;
    if (v == 1 || v == 2) return {"max_vocab", "must be 0 (no limit) or more than the 2 specials"};
    return {"", ""};
  });
}

// ASCII-lowercases every token in place (data.lowercase; other bytes, UTF-8 included, are kept).
void lowercase_ascii(std::vector<std::string>& tokens);

// Word ids from the training text's counts: <pad>=0, <unk>=1, then words by descending count (ties by first
// appearance), those below c.min_count dropped, cut to c.max_vocab entries. Frozen; unknown words -> <unk>.
Vocab build_text_vocab(const TokenCounts& counts, const TextDataConfig& c);


}  // namespace twin
