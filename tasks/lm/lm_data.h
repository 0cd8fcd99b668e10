// Word-level LM data: corpus files -> one id stream per split (a sentence's tokens then "<eos>", as in
// Mikolov's PTB setup), the classic batchify layout and truncated-BPTT windows.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "base/config_table.h"
#include "base/real.h"
#include "data/vocab.h"

namespace twin {
class JsonReader;
}

namespace twin::lm {

enum class LmLoss { kSumTimeMeanBatch, kMeanToken };
inline constexpr NameTable<LmLoss, 2> kLmLossNames{
    {{LmLoss::kSumTimeMeanBatch, "sum_time_mean_batch"}, {LmLoss::kMeanToken, "mean_token"}}};

// Words of a split that are not in the vocabulary: an error naming file, line and word (a prepared corpus such as
// PTB maps its rare words to <unk> itself, so such a word means a wrong file or vocabulary), or mapped to
// <unk>, counted and printed.
enum class LmOov { kError, kUnk };
inline constexpr NameTable<LmOov, 2> kLmOovNames{{{LmOov::kError, "error"}, {LmOov::kUnk, "unk"}}};

struct LmDataConfig {
  std::string dir = "data/ptb";
  std::string train = "train.txt", valid = "valid.txt", test = "test.txt";
  std::string vocab;                // optional vocabulary file (one word per line); default: built from train
  int bptt = 35;
  int eval_batch_size = 10;
  // How the summed cross-entropy of a window is turned into the training loss (reference/paper_tables.md):
  // "sum_time_mean_batch" (Zaremba et al., the ATR repo's TF LM: lr 1.0 / 0.6 and clip 5 assume it) or
  // "mean_token" (pytorch/examples: lr 20, clip 0.25).
  LmLoss loss = LmLoss::kSumTimeMeanBatch;
  LmOov oov = LmOov::kError;
};
const ConfigTable<LmDataConfig>& lm_data_table();
LmDataConfig parse_lm_data(JsonReader& r);
nlohmann::json to_json(const LmDataConfig& c);

// PTB's vocabulary: <unk> and <eos> are ordinary words, no reserved ids; unknown words map to <unk>.
inline const VocabOptions kLmVocabOptions{{}, "<unk>", false, 1, 0};

struct LmCorpus {
  Vocab vocab{kLmVocabOptions};
  Ids train, valid, test;
  std::vector<std::string> notes;   // one line per split whose words were mapped to <unk> (data.oov = "unk")
};

// Reads the three splits. Every line must be UTF-8 (an error names file, line and byte). A word missing from
// the vocabulary is an error naming file, line and word (data.oov = "error"), or maps to <unk> (an error when
// the vocabulary has none), counted in corpus.notes (data.oov = "unk"). Empty files are an error.
LmCorpus load_corpus(const LmDataConfig& c);
// One split as ids; `unknown` (when given) receives the number of words mapped to <unk>.
Ids read_stream(const std::string& path, const Vocab& vocab, LmOov oov = LmOov::kError, long* unknown = nullptr);

// Column b of the result is stream[b*L, (b+1)*L), L = |stream| / batch (the tail is dropped), shape [L, B].
IdMat batchify(const Ids& stream, Index batch);
// Windows over a batchified [L, B] matrix: window w covers input rows [w*bptt, w*bptt + T) and targets one
// row later, T = min(bptt, L - 1 - w*bptt).
Index num_windows(const IdMat& data, int bptt);
void window(const IdMat& data, Index w, int bptt, IdMat& input, IdMat& target);

}  // namespace twin::lm
