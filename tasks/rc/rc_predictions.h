// The reading-comprehension prediction file and its scores: `{id: answer text}` JSON, the format SQuAD's
// official evaluate-v1.1.py reads (a run's predictions/dev.json), written from predicted token spans and scored
// by core/eval/squad_eval (the official EM / F1) against every question of the split, dropped ones included.
// Ids: as the official script does, a question without a prediction scores 0 (the script prints "Unanswered
// question <id> will receive score 0." for each) and a prediction whose id is not in the dataset is ignored
// (silently there); here both are counted and reported in one line (prediction_report), not errors.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "eval/squad_eval.h"
#include "rc_data.h"

namespace twin::rc {

using Predictions = std::map<std::string, std::string>;   // question id -> answer text

// A predicted span [first, last] of each examples[k] as its answer text (answer_text, rc_data.h). spans.size()
// must equal examples.size(); a span outside its passage is an Error naming the question id.
Predictions predictions_of(const std::vector<RcExample>& examples, const std::vector<std::pair<int, int>>& spans);

// `p` as the file's text: one JSON object, keys sorted, UTF-8, ending in a newline.
std::string prediction_text(const Predictions& p);
// Writes prediction_text(p) to `path` (atomically, file_io.h).
void write_predictions(const std::string& path, const Predictions& p);
// Reads a prediction file (gzip or plain); not JSON, not an object or a value that is not a string: an Error
// naming the file (and the id).
Predictions read_predictions(const std::string& path);

// The official EM / F1 of `p` over `split.questions` (every question of the split file).
SquadScore score_predictions(const RcSplit& split, const Predictions& p);
// The same for a prediction file, read as the official script would be given it.
SquadScore score_prediction_file(const RcSplit& split, const std::string& path);

// One line on what the scorer tolerated, e.g. "predictions/dev.json: 10570 questions, 10568 answered; 2 without
// a prediction scored 0 (as evaluate-v1.1.py's 'Unanswered question ... will receive score 0'; first: a, b);
// 1 id not in the dataset ignored (first: x)"; the counts of `s`, with at most `first` ids of each kind.
std::string prediction_report(const std::string& path, const SquadScore& s, std::size_t first = 5);

}  // namespace twin::rc
