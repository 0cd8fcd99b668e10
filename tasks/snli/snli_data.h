// SNLI data as data_prep/snli.py writes it (data/snli/<protocol>/, protocols inhouse, full, sick): per split
// one `<split>.tsv`, one pair per line `label<TAB>premise tokens<TAB>hypothesis tokens`, label one of
// entailment / neutral / contradiction, tokens separated by spaces. Every line is checked; a bad one is an
// error naming file:line, never a silently dropped pair. Also: the word vocabulary (both sides of the training
// pairs) and padded batches of pairs. The `data` keys, batching and pretrained (GloVe) embeddings are shared
// with the classify task: data/labelled_text.h.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "base/real.h"
#include "base/rng.h"
#include "data/batch.h"
#include "data/labelled_text.h"
#include "data/vocab.h"
#include "base/json_reader.h"

namespace twin::snli {

inline constexpr int kNumLabels = 3;  // entailment, neutral, contradiction (ids 0, 1, 2)

// The id of a label name (exactly "entailment", "neutral" or "contradiction"); anything else is an error
// whose message starts with `where` (e.g. "data/snli/inhouse/dev.tsv:12").
int label_id(std::string_view name, const std::string& where);
// The name of label id 0..2; an error for any other id.
const char* label_name(int id);

// The shared `data` keys (data/labelled_text.h); SNLI adds none. The prepared files keep case (lowercase
// false by default); splits are <dir>/<name>.tsv.
struct SnliDataConfig : TextDataConfig {
  SnliDataConfig() : TextDataConfig(128) {}   // pairs per training batch
};
// Reads the `data` object of an experiment (dir and protocol required; the rest optional; unknown keys are
// errors).
const ConfigTable<SnliDataConfig>& snli_data_table();
SnliDataConfig parse_snli_data(JsonReader& r);
// Every setting, defaults included (config.resolved.json).
nlohmann::json to_json(const SnliDataConfig& c);

struct Pair {
  std::vector<std::string> premise, hypothesis;
  int label = 0;  // 0..kNumLabels-1
};

// The pairs of `<dir>/<split>.tsv`, in file order (lowercased with c.lowercase). Errors name file:line: a
// field count other than 3, an unknown label, an empty premise or hypothesis, invalid UTF-8 (with the byte
// offset); a missing file says how to make it (python3 data_prep/snli.py); a file without pairs is an error.
std::vector<Pair> read_split(const SnliDataConfig& c, const std::string& split);

// Word ids from the premises and hypotheses of `train`: <pad>=0, <unk>=1, then words by descending count
// (ties by first appearance), those below c.min_count dropped, cut to c.max_vocab entries. Frozen; unknown
// words map to <unk>.
Vocab build_vocab(const std::vector<Pair>& train, const SnliDataConfig& c);

// A padded batch of the pairs `index` (time-major [T, B], run_rnn's layout), both sides padded separately.
struct SnliBatch {
  SeqBatch premise, hypothesis;
  Ids labels;  // B label ids, in the order of index
  Index size() const { return premise.size(); }
};
SnliBatch make_batch(const std::vector<Pair>& data, const std::vector<int>& index, const Vocab& v);

// A pair's length for batching (training windows and evaluation, data/batch.h): premise + hypothesis tokens.
inline std::size_t pair_length(const Pair& p) { return p.premise.size() + p.hypothesis.size(); }

}  // namespace twin::snli
