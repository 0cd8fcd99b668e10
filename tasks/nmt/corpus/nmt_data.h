// Parallel data for NMT: aligned source/target text files, SentencePiece-encoded, length-filtered (training
// only) and cut into token-based batches with length buckets (Marian's sorted maxi-batches, core/data/batch.h).
//
// Files: {dir}/{split}.{form}.{lang}, the layout data_prep/nmt.py writes (e.g. data/multi30k/val.tok.de).
// Sequences end with EOS (source too, as Nematus does), so an empty line is a sequence of one token.
// Misaligned files (different line counts) are an error naming both files and counts, never a truncation.
// Training drops pairs with an empty side and pairs outside the length filter, and says how many and which.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/config_table.h"
#include "base/rng.h"
#include "corpus/nmt_batch.h"
#include "corpus/subword.h"
#include "data/split_names.h"

namespace twin {
class JsonReader;
}

namespace twin::nmt {

// Which text of the prepared corpus the model reads, the <form> of its file names; key "form".
enum class TextForm { kTok, kRaw };
inline constexpr NameTable<TextForm, 2> kTextFormNames{{{TextForm::kTok, "tok"}, {TextForm::kRaw, "raw"}}};

struct NmtDataConfig : SplitNames {   // split names: {dir}/{split}.{form}.{lang}
  NmtDataConfig() : SplitNames{"train", "val", "test2016"} {}   // Multi30k's
  std::string dir = "data/multi30k";
  std::string src = "en", tgt = "de";
  TextForm form = TextForm::kTok;               // tok (lowercased Moses tokens) | raw
  std::vector<std::string> extra_tests;         // also translated and scored at the end (e.g. newstest2014)
  std::string bpe = "bpe8000/joint.model";      // joint model, relative to dir; or bpe_src + bpe_tgt
  std::string bpe_src, bpe_tgt;
  int max_len = 80;                             // training filter, pieces without EOS, each side
  double max_ratio = 3.0;                       // training filter: max(len)/min(len); 0 = off
  long max_train = 0;                           // > 0: the first N kept pairs only (smoke runs)
  long batch_tokens = 2500;                     // padded tokens per batch: B * (longest side + 1)
  int max_sentences = 128;                      // cap per batch
  int maxi_batch = 20;                          // sorting window in batches
  int eval_sentences = 64;                      // sentences per decoding batch
};
const ConfigTable<NmtDataConfig>& nmt_data_table();
NmtDataConfig parse_nmt_data(JsonReader& r);
nlohmann::json to_json(const NmtDataConfig& c);
// {dir}/{split}.{form}.{lang}; form: c.form unless given.
std::string split_path(const NmtDataConfig& c, const std::string& split, const std::string& lang,
                       std::optional<TextForm> form = std::nullopt);


struct FilterReport {
  long read = 0, kept = 0, empty = 0, too_long = 0, bad_ratio = 0;
  std::vector<long> empty_lines;                // first few, for the message
  std::string str() const;
};

// Reads a split. training: drop empty and filtered pairs (reported in `report`); otherwise keep every line.
Parallel read_parallel(const std::string& src_path, const std::string& tgt_path, const Subword& src_sp,
                       const Subword& tgt_sp, const NmtDataConfig& c, bool training, FilterReport* report);

// The training batches' shape from the data config: at most data.max_sentences pairs and data.batch_tokens
// padded tokens (the longer side) per batch, length-sorted in windows of data.maxi_batch batches.
BatchingOptions nmt_batching(const NmtDataConfig& c);
// Token-based batches of the pairs (lengths bucketed in maxi-batches); shuffle = false keeps the input order
// (evaluation) and leaves the rng untouched.
std::vector<std::vector<int>> nmt_batches(const Parallel& data, const NmtDataConfig& c, Rng& rng, bool shuffle = true);

}  // namespace twin::nmt
