// `lm score`: a trained language model scores new text (issue 29).
//   build/bin/lm score <run> [--input FILE] [--output FILE] [--batch N] [--threads N]
// reads one sentence per line (tokens separated by spaces; stdin by default) and writes one line per sentence,
// "logprob<TAB>tokens<TAB>ppl": the natural-log probability of its words and the closing <eos>, each sentence
// scored on its own from a zero state with <eos> as its first context (as a line starts in the training
// stream), the number of scored tokens (words + 1) and exp(-logprob / tokens). A last line "# total" gives the
// corpus log-probability, tokens and perplexity. Words outside the vocabulary are scored as <unk>; their count
// is printed. Sentences of equal length are batched together (no padding: batching changes a score by float rounding only).
// The model is <run>/model.best.bin with the run's config.resolved.json; the vocabulary is the run's vocab.txt
// (written when training ends) or, for older runs, rebuilt from the data the config names (a note says so).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "lm_data.h"
#include "lm_model.h"
#include "train/kept_vocabs.h"
#include "train/predict_cli.h"
#include "train/trained_run.h"

namespace twin::lm {

// The mode's command line (train/predict_cli.h).
int score_main(int argc, char** argv);   // argv[0] is "score"
inline constexpr PredictMode kScoreMode{"lm score",
    "one sentence per line",
    "\"logprob<TAB>tokens<TAB>ppl\" per sentence, then a \"# total\" line",
    score_main};

struct SentenceScore {
  double logprob = 0;   // natural log
  long tokens = 0;      // words + <eos>
  long unknown = 0;     // words mapped to <unk>
};

// An LM run's parts (train/trained_run.h): what LmTask trains and `lm score` loads, built one way. Its vocabulary
// is kept as vocab.txt (OneVocabParts).
struct LmParts : RunPartsOf<Vocab, LmModel, parse_lm_data, parse_lm_model, lm_data_table, lm_model_table>,
                 OneVocabParts {
  static constexpr RunKind kRun{"lm", "bptt"};
  static std::unique_ptr<Model> make(const ModelConfig& m, const Data& d, const Vocabs& v, ParamStore& store);
  static Vocabs load_vocabs(Data& d, const std::string& run_dir);
};

struct Scorer : TrainedRun<Scorer, LmParts> {
  // One score per line; `source` names the input in errors (invalid UTF-8: "<source>:<line>").
  std::vector<SentenceScore> score(const std::vector<std::string>& lines, int batch, const std::string& source) const;
};

}  // namespace twin::lm
