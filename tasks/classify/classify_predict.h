// `classify predict`: a trained sentence classifier applied to new text (issue 29).
//   build/bin/classify predict <run> [--input FILE] [--output FILE] [--batch N] [--threads N]
// reads one tokenised sentence per line (the text of a data file's line without its label: tokens separated by
// spaces; stdin by default) and writes one line per sentence, "label<TAB>probability": the predicted label as
// the data files write it (the integer 0..C-1) and its softmax probability. The run's preprocessing is applied
// (ASCII lowercasing when data.lowercase, then the length policy, data.max_length; words outside the vocabulary
// are <unk>); the model is in inference mode (no dropout) and the batches are those of the run's own evaluation
// (data.eval_batch_size and data.eval_batch_tokens, input order),
// so the run's predictions/test.txt is reproduced from its test sentences. An empty line is an error naming
// it (a classifier needs at least one word). The model is <run>/model.best.bin with the run's
// config.resolved.json; the vocabulary is the run's vocab.txt (written when training finishes) or, for runs that
// predate it, rebuilt from the training split the config names (a note says so).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "classify_data.h"
#include "classify_model.h"
#include "eval/labels.h"
#include "train/kept_vocabs.h"
#include "train/predict_cli.h"
#include "train/trained_run.h"

namespace twin::classify {

// The mode's command line (train/predict_cli.h).
int predict_main(int argc, char** argv);   // argv[0] is "predict"
inline constexpr PredictMode kPredictMode{"classify predict",
    "one tokenised sentence per line (lowercased when the run was)",
    "\"label<TAB>probability\" per sentence",
    predict_main};

using Prediction = LabelProbability;   // the label id and its softmax probability

// One prediction per sentence, in input order, in batches of `batch` sentences (no dropout): what the task's own
// evaluation labels with, so the predict mode gives a run's predictions again.
std::vector<Prediction> label_sentences(const ClassifyModel& model, const Vocab& vocab,
                                        const std::vector<Example>& sentences, const BatchingOptions& batching);

// A classify run's parts (train/trained_run.h): what ClassifyTask trains and `classify predict` loads, built one
// way. data.num_labels is the run's resolved one (counted from the training split when the experiment left it 0).
// Its vocabulary is kept as vocab.txt (OneVocabParts).
struct ClassifyParts
    : RunPartsOf<Vocab, ClassifyModel, parse_classify_data, parse_classify_model, classify_data_table,
                 classify_model_table>,
      OneVocabParts {
  static constexpr RunKind kRun{"classify", "num_labels"};
  static std::unique_ptr<Model> make(const ModelConfig& m, const Data& d, const Vocabs& v, ParamStore& store);
  static Vocabs load_vocabs(Data& d, const std::string& run_dir);
};

// A trained classifier loaded from a run folder.
struct Predictor : TrainedRun<Predictor, ClassifyParts> {
  // The tokens of each line (lowercased when the run was); `source` names the input in errors
  // ("<source>:<line>: ...": invalid UTF-8, an empty line).
  std::vector<Example> read_sentences(const std::vector<std::string>& lines, const std::string& source) const;
  std::vector<Prediction> predict(const std::vector<Example>& sentences, const BatchingOptions& batching) const {
    return label_sentences(*model, vocab, sentences, batching);
  }
};

}  // namespace twin::classify
