// SQuAD data as data_prep/squad.py writes it (data/squad/{train,heldout,dev}.jsonl; its docstring is the
// format): one paragraph per line, {"title", "context", "tokens", "offsets" (UTF-8 byte offsets [b, e) of each
// token in the context), "qas": [{"id", "question", "question_tokens", "answers": [{"text", "char_start",
// "span": [first, last] (token indices, inclusive), "aligned"}]}]}. Each question is one example sharing its
// paragraph. Every line is checked; a bad one is an error naming file:line and the question id, never a silently
// dropped question. Roles of the splits: train trains, heldout (whole training articles, squad.py) picks the
// checkpoint, dev (SQuAD v1.1 dev, official ids) is what is reported, as R-Net's "dev" and "test" files.
// The vocabularies and the batches: rc_vocab.h; the prediction file and its scoring: rc_predictions.h.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/config_table.h"
#include "base/json_reader.h"
#include "base/real.h"
#include "data/batching_config.h"
#include "eval/squad_eval.h"

namespace twin::rc {

// The `data` section. Limits are R-Net's (HKUST-KnowComp R-Net config.py, the LRN repository's rc/):
// para_limit 400 / ques_limit 50 for training (longer questions dropped, as R-Net's build_features filters
// them), test_para_limit 1000 / test_ques_limit 100 for evaluation, char_limit 16 characters per word.
struct RcDataConfig : BatchingConfig {
  RcDataConfig() : BatchingConfig(64) {}   // questions per training batch (R-Net's batch_size)

  std::string dir;        // folder of the prepared splits, e.g. data/squad
  std::string protocol;   // a plain description for tables
  std::string train = "train", heldout = "heldout", dev = "dev";   // <dir>/<name>.jsonl
  int passage_limit = 400;        // training: questions of longer passages are dropped (counted)
  int question_limit = 50;        // training: longer questions are dropped (counted)
  int test_passage_limit = 1000;  // heldout, dev and prediction: the same, with R-Net's test limits
  int test_question_limit = 100;
  int char_limit = 16;            // characters of a word fed to the character RNN (the first ones)
  int min_count = 1;              // without embeddings: training words seen fewer times map to <unk>
  long max_train_questions = 0;   // > 0: only the first N questions of the training file (smoke runs, pilots)
  long max_eval_questions = 0;    // > 0: only the first N questions of heldout and dev, each scored over those N
  std::string embeddings;         // GloVe-format vectors; "" = the vocabulary of the training words
};
const ConfigTable<RcDataConfig>& rc_data_table();
RcDataConfig parse_rc_data(JsonReader& r);
nlohmann::json to_json(const RcDataConfig& c);

// A token's UTF-8 bytes [begin, end) in its context.
struct ByteSpan {
  int begin = 0, end = 0;
};

// A tokenised passage or question; words / chars are filled by encode() (rc_vocab.h) once the vocabularies
// exist. chars holds every character id of every token (not cut to data.char_limit: the batch cuts), token k's
// in chars[char_begin[k], char_begin[k + 1]).
struct RcText {
  std::vector<std::string> tokens;
  Ids words;
  Ids chars;
  std::vector<int> char_begin;
  int size() const { return static_cast<int>(tokens.size()); }
  bool encoded() const { return words.size() == tokens.size() && char_begin.size() == tokens.size() + 1; }
};

struct RcParagraph {
  std::string context;             // the source text, UTF-8
  RcText passage;                  // its tokens
  std::vector<ByteSpan> offsets;   // per token
  std::string where;               // "file:line", for messages
};

struct RcAnswer {
  std::string text;       // as the source gives it (scored by the official metric)
  int first = 0, last = 0;   // token span, inclusive
  bool aligned = true;    // squad.py: the text starts and ends at token bounds
};

struct RcExample {
  std::string id;
  std::shared_ptr<RcParagraph> paragraph;   // shared by the paragraph's questions
  RcText question;
  std::vector<RcAnswer> answers;            // at least one; the first is the training target
};

// Questions whose passage or question has more tokens than these are dropped (0 = no limit); with questions > 0
// only the file's first that many questions are kept, and the rest of the file is not read (smoke runs, pilots).
struct RcLimits {
  int passage = 0, question = 0;
  long questions = 0;
};

struct RcSplit {
  std::string path;
  std::vector<RcExample> examples;           // the kept questions, in file order
  std::vector<SquadQuestion> questions;      // every question of the file (dropped ones too): scoring
  long paragraphs = 0;                       // read
  long dropped_passage = 0, dropped_question = 0;   // over limits.passage; else over limits.question
  bool cut = false;                          // limits.questions reached: the rest of the file was not read
  RcLimits limits;
  std::string summary() const;   // the log line: counts and the drops with their limits
};

// The questions of one split file (the format above), in file order, those over `limits` dropped and counted.
// Errors name file:line and the item (the question id when there is one): not JSON; no (or a mistyped)
// context / tokens / offsets / qas / id / question_tokens / answers; an empty context; tokens and offsets of
// different lengths; an offset outside the context, overlapping the previous one, or whose bytes are not the
// token; an empty question; a question without answers; an answer span outside the passage or with first > last;
// an id seen before in the file. A missing file says how to make it; a file without questions is an error.
// With limits.questions > 0, reading stops once that many questions are in (`cut`).
RcSplit read_rc_file(const std::string& path, RcLimits limits);
// <dir>/<name>.jsonl with the training limits (training) or the test limits, its first data.max_train_questions
// or data.max_eval_questions questions when set (the split is then scored over those alone); prints summary()
// to stderr.
RcSplit read_split(const RcDataConfig& c, const std::string& name, bool training);

// obj[key] when obj has it and `is` (e.g. &nlohmann::json::is_string) holds for it, else an Error: "<where>: no
// '<key>': <layout>" or "<where>: '<key>' is a JSON <its type>, expected <type>". The readers of a split file and
// of `rc predict`'s input check every field through it.
const nlohmann::json& need_field(const nlohmann::json& obj, const char* key,
                                 bool (nlohmann::json::*is)() const noexcept, const char* type,
                                 const std::string& where, const char* layout);

// The answer text of the token span [first, last] of p: the context's bytes from the first token's begin to
// the last token's end (R-Net's convention: context[spans[first][0] : spans[last][1]]), so that a predicted
// span becomes the string the official metric scores. An Error for a span outside the passage or first > last.
std::string answer_text(const RcParagraph& p, int first, int last);

}  // namespace twin::rc
