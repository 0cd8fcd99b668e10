// Sentence classification data: any corpus with one example per line, `<label> <tokens>` (an integer label
// 0..C-1, then the tokens, separated by ASCII whitespace), as data_prep/sst.py writes SST-2 / SST-5
// (data/sst/{sst2,sst5}/{train,dev,test}.txt) and Kim (2014)'s stsa.* files are. Every line is checked; a bad
// one is an error naming file:line (missing label, non-integer or unknown label, empty text, invalid UTF-8),
// never a silently dropped example. Also: the word vocabulary of the training sentences (min count, max
// size), the number of labels (given, or counted from the training data), padded batches. The `data` keys,
// batching and pretrained (GloVe) embeddings are shared with the snli task: data/labelled_text.h. Documents
// (data_prep/docs.py: IMDB, 20 Newsgroups) are lines like any other; the length policy (data.max_length,
// classify_length.h) cuts the long ones as they are read.
#pragma once
#include <string>
#include <vector>

#include "base/real.h"
#include "base/rng.h"
#include "data/batch.h"
#include "data/labelled_text.h"
#include "data/vocab.h"
#include "base/json_reader.h"
#include "classify_length.h"

namespace twin::classify {

// The shared `data` keys (data/labelled_text.h) plus the number of labels. The SST files are lowercased
// already; splits are <dir>/<name>.txt.
struct ClassifyDataConfig : TextDataConfig {
  ClassifyDataConfig() : TextDataConfig(32) {}   // sentences per training batch
  int num_labels = 0;   // C; 0 = counted from the training data (max label + 1, every label present)
  LengthPolicy length;  // data.max_length, data.truncate, data.truncate_head (classify_length.h)
};
// Reads the `data` object of an experiment (dir and protocol required; the rest optional; unknown keys are
// errors).
const ConfigTable<ClassifyDataConfig>& classify_data_table();
ClassifyDataConfig parse_classify_data(JsonReader& r);
// Every setting, defaults included (config.resolved.json).
nlohmann::json to_json(const ClassifyDataConfig& c);

struct Example {
  std::vector<std::string> tokens;
  int label = 0;
  long dropped = 0;   // tokens the length policy cut from the line (0: read whole)
};

// The examples of `path`, in file order. num_labels > 0: a label >= num_labels is an error ("unknown label");
// num_labels == 0: any non-negative integer is accepted. Errors name file:line: an empty line (missing label),
// a first field that is not a non-negative integer, an unknown label, a label without text, invalid UTF-8 (with
// the byte offset). A missing file says how to make SST (python3 data_prep/sst.py); a file without examples
// is an error. Each example is cut to `length` (after the checks, which see the whole line).
std::vector<Example> read_examples(const std::string& path, int num_labels, bool lowercase = false,
                                   const LengthPolicy& length = {});
// Per split: examples, how many the length policy cut, and the tokens kept and dropped.
nlohmann::json truncation_counts(const std::vector<Example>& data);
// <dir>/<split>.txt with the config's settings.
std::string split_path(const ClassifyDataConfig& c, const std::string& split);

// The number of labels: c.num_labels when given (every training label must be below it), else the largest
// training label + 1, where every label 0..C-1 must occur in `train` (a gap means a label scheme that is not
// 0..C-1: set data.num_labels). At least 2.
int count_labels(const std::vector<Example>& train, const ClassifyDataConfig& c, const std::string& train_path);
// Examples per label (C entries).
std::vector<long> label_counts(const std::vector<Example>& data, int num_labels);

// Word ids from the training sentences: <pad>=0, <unk>=1, then words by descending count (ties by first
// appearance), those below c.min_count dropped, cut to c.max_vocab entries. Frozen; unknown words -> <unk>.
Vocab build_vocab(const std::vector<Example>& train, const ClassifyDataConfig& c);

// A padded batch of the examples `index` (time-major [T, B], run_rnn's layout).
struct ClassifyBatch {
  SeqBatch text;
  Ids labels;   // B label ids, in the order of index
  Index size() const { return text.size(); }
};
ClassifyBatch make_batch(const std::vector<Example>& data, const std::vector<int>& index, const Vocab& v);

// An example's length for batching (training windows and evaluation, data/batch.h): its tokens.
inline std::size_t example_length(const Example& e) { return e.tokens.size(); }

}  // namespace twin::classify
