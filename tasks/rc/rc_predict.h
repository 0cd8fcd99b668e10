// `rc predict`: a trained reader answering the questions of a SQuAD-format file (issue 53).
//   build/bin/rc predict <run> [--input FILE] [--output FILE] [--batch N] [--threads N]
// reads a JSON file in the official SQuAD layout, {"data": [{"paragraphs": [{"context": "...", "qas": [{"id":
// "...", "question": "..."}]}]}]} (titles and answers may be there and are not read; stdin by default), and writes
// the official prediction format, one JSON object {id: answer text} with its keys sorted: what evaluate-v1.1.py
// (and core/eval/squad_eval) reads. Contexts and questions are tokenised as data_prep/squad.py does
// (rc_tokenize.h), words looked up as in training (R-Net's forms, else <unk>), and every question is answered by
// the span decoder the run's evaluation uses, in batches of data.eval_batch_size questions (--batch N), so the
// run's predictions/dev.json comes again from its dev questions. data.test_passage_limit and
// test_question_limit choose what a run evaluates and do not apply here: a longer passage is answered too. The
// model is <run>/model.best.bin with the run's config.resolved.json and its vocab.words.txt / vocab.chars.txt.
// Bad input is an error naming the input and the item (data[0].paragraphs[1].qas[0]): not JSON; no data,
// paragraphs, context, qas, id or question, or one of another JSON type; a context or question without a token;
// an id seen before.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/batch.h"
#include "rc_data.h"
#include "rc_model.h"
#include "rc_predictions.h"
#include "rc_vocab.h"
#include "train/kept_vocabs.h"
#include "train/predict_cli.h"
#include "train/trained_run.h"

namespace twin::rc {

int predict_main(int argc, char** argv);   // argv[0] is "predict"
inline constexpr PredictMode kPredictMode{"rc predict",
    "a SQuAD-format JSON file: {\"data\": [{\"paragraphs\": [{\"context\", \"qas\": [{\"id\", \"question\"}]}]}]}",
    "the official prediction file: one JSON object {id: answer text}",
    predict_main};

// The predicted token span (first, last) of every example (encoded), in eval batches cut by `batching` (no
// dropout): what the task's evaluation and the predict mode both answer with.
std::vector<std::pair<int, int>> answer_spans(const RcModel& model, const std::vector<RcExample>& examples,
                                              const BatchingOptions& batching, int char_limit);

// Every question of a SQuAD-format JSON (the layout above), tokenised, in file order; the examples of one
// paragraph share it. `file` names the input in errors.
std::vector<RcExample> read_squad_questions(const nlohmann::json& root, const std::string& file);

// An rc run's parts (train/trained_run.h): what RcTask trains and `rc predict` loads, built one way. The word
// vectors are not in Parts::make: training loads them from data.embeddings (rc_task.cc), prediction from the
// run's parameters. Its vocabularies are kept as vocab.words.txt and vocab.chars.txt (WordCharParts).
struct RcParts : RunPartsOf<RcVocabs, RcModel, parse_rc_data, parse_rc_model, rc_data_table, rc_model_table>,
                 WordCharParts<RcVocabs> {
  static constexpr RunKind kRun{"rc", "passage_limit"};
  // An Error for model.freeze_words without data.embeddings (every word vector would stay zero).
  static std::unique_ptr<Model> make(const ModelConfig& m, const Data& d, const Vocabs& v, ParamStore& store);
  static Vocabs load_vocabs(Data& d, const std::string& run_dir);
};

// A trained reader loaded from a run folder.
struct Reader : TrainedRun<Reader, RcParts> {
  // The answer text of every question of `examples` (encoded here with the run's vocabularies).
  Predictions answer(std::vector<RcExample>& examples, const BatchingOptions& batching) const;
};

}  // namespace twin::rc
