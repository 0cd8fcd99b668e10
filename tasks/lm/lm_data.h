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
};
const ConfigTable<LmDataConfig>& lm_data_table();
LmDataConfig parse_lm_data(JsonReader& r);
nlohmann::json to_json(const LmDataConfig& c);

struct LmCorpus {
  Vocab vocab{VocabOptions{{}, "<unk>", false, 1, 0}};
  Ids train, valid, test;
};

// Reads the three splits. Words of valid/test missing from the vocabulary map to <unk> when the vocabulary
// has it, otherwise they are an error naming file and line. Empty files are an error.
LmCorpus load_corpus(const LmDataConfig& c);
Ids read_stream(const std::string& path, const Vocab& vocab);

// Column b of the result is stream[b*L, (b+1)*L), L = |stream| / batch (the tail is dropped), shape [L, B].
IdMat batchify(const Ids& stream, Index batch);
// Windows over a batchified [L, B] matrix: window w covers input rows [w*bptt, w*bptt + T) and targets one
// row later, T = min(bptt, L - 1 - w*bptt).
Index num_windows(const IdMat& data, int bptt);
void window(const IdMat& data, Index w, int bptt, IdMat& input, IdMat& target);

}  // namespace twin::lm
