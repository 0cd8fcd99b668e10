// `snli predict`: a trained inference model applied to new sentence pairs (issue 29).
//   build/bin/snli predict <run> [--input FILE] [--output FILE] [--batch N] [--threads N]
// reads one pair per line, "premise<TAB>hypothesis" (each tokenised, tokens separated by spaces: a data file's
// line without its label; stdin by default) and writes one line per pair, "label<TAB>probability": the
// predicted label (entailment, neutral or contradiction) and its softmax probability. A line without exactly
// one TAB, or with an empty premise or hypothesis, is an error naming the line. The run's preprocessing is
// applied (ASCII lowercasing when data.lowercase; words outside the vocabulary are <unk>); the model is in
// inference mode (no dropout) and the batches are those of the run's own evaluation (data.eval_batch_size,
// input order), so the run's predictions/test.txt is reproduced from its test pairs. The model is
// <run>/model.best.bin with the run's config.resolved.json; the vocabulary is the run's vocab.txt (written when
// training finishes) or, for runs that predate it, rebuilt from the training split the config names (a note
// says so).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "snli_data.h"
#include "eval/labels.h"
#include "snli_model.h"
#include "train/kept_vocabs.h"
#include "train/predict_cli.h"
#include "train/trained_run.h"

namespace twin::snli {

// The mode's command line (train/predict_cli.h).
int predict_main(int argc, char** argv);   // argv[0] is "predict"
inline constexpr PredictMode kPredictMode{"snli predict",
    "one tokenised \"premise<TAB>hypothesis\" pair per line",
    "\"label<TAB>probability\" per pair",
    predict_main};

using Prediction = LabelProbability;   // label 0..2 (label_name() gives its name) and its softmax probability

// One prediction per pair, in input order, in batches of `batch` pairs (no dropout): what the task's own evaluation
// labels with, so the predict mode gives a run's predictions again.
std::vector<Prediction> label_pairs(const SnliModel& model, const Vocab& vocab, const std::vector<Pair>& pairs,
                                    const BatchingOptions& batching);

// An SNLI run's parts (train/trained_run.h): what SnliTask trains and `snli predict` loads, built one way. snli's
// data keys are all shared with classify (which adds num_labels), so the model's `kind` marks the task too.
// Its vocabulary is kept as vocab.txt (OneVocabParts).
struct SnliParts : RunPartsOf<Vocab, SnliModel, parse_snli_data, parse_snli_model, snli_data_table, snli_model_table>,
                   OneVocabParts {
  static constexpr RunKind kRun{"snli", "lowercase", "kind"};
  static std::unique_ptr<Model> make(const ModelConfig& m, const Data& d, const Vocabs& v, ParamStore& store);
  static Vocabs load_vocabs(Data& d, const std::string& run_dir);
};

// A trained SNLI model loaded from a run folder.
struct Predictor : TrainedRun<Predictor, SnliParts> {
  // The pairs of the lines (lowercased when the run was); `source` names the input in errors
  // ("<source>:<line>: ..."). Labels are unset (0).
  std::vector<Pair> read_pairs(const std::vector<std::string>& lines, const std::string& source) const;
  std::vector<Prediction> predict(const std::vector<Pair>& pairs, const BatchingOptions& batching) const {
    return label_pairs(*model, vocab, pairs, batching);
  }
};

}  // namespace twin::snli
