// What the labelled-text tasks (snli: sentence pairs, classify: single sentences) share about their data:
// the common keys of the experiment's `data` object (TextDataConfig), the word vocabulary of the training
// text, ASCII lowercasing and GloVe-format pretrained word embeddings. Each task
// keeps its own file format, labels and extra keys (classify's num_labels) on top of this.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/rng.h"
#include "data/vocab.h"
#include "base/json_reader.h"

namespace twin {

class Embedding;   // nn/embedding.h; only labelled_text.cc needs its definition

struct TextDataConfig {
  // The tasks differ only in the default batch size (SNLI 128 pairs, classify 32 sentences), so each says
  // its own and no default can be taken by mistake.
  explicit TextDataConfig(int default_batch_size) : batch_size(default_batch_size) {}

  std::string dir;        // e.g. data/snli/inhouse, data/sst/sst2
  std::string protocol;   // a plain description for tables, e.g. "SST-2 sentence level, Kim (2014) splits"
  std::string train = "train", dev = "dev", test = "test";   // split names: <dir>/<name>.<task's extension>
  bool lowercase = false;   // ASCII-lowercase every token when reading
  int min_count = 1;        // training words seen fewer times map to <unk>
  int max_vocab = 0;        // at most this many vocabulary entries, the 2 specials included; 0 = no limit
  std::string embeddings;   // GloVe text file for the word embeddings, "" = none (random initialisation)
  int batch_size;           // examples per training batch
  int maxi_batch = 20;      // length-sorting window, in batches
  int eval_batch_size = 256;
};

// Reads the shared keys of a `data` object into c, whose values are the defaults (dir and protocol are
// required). It does not call r.finish(): the task reads its own keys first, then finishes.
void read_text_data(JsonReader& r, TextDataConfig& c);
// Sets every shared key of `out` (defaults included), for config.resolved.json.
void write_text_data(const TextDataConfig& c, nlohmann::json& out);

// ASCII-lowercases every token in place (data.lowercase; other bytes, UTF-8 included, are kept).
void lowercase_ascii(std::vector<std::string>& tokens);

// Word ids from the training text's counts: <pad>=0, <unk>=1, then words by descending count (ties by first
// appearance), those below c.min_count dropped, cut to c.max_vocab entries. Frozen; unknown words -> <unk>.
Vocab build_text_vocab(const TokenCounts& counts, const TextDataConfig& c);


}  // namespace twin
