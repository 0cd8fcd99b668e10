// Scoring of one predicted label per example (SNLI / SICK inference, SST classification), shared by the tasks
// so that every accuracy in results/ is computed by one function, and the predictions file that keeps the
// outputs a reported accuracy came from (`make rescore` recomputes the accuracy from it and the gold labels).
#pragma once
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/real.h"

namespace twin {

// The label a classifier predicts for one example and that label's softmax probability.
struct LabelProbability {
  int label = 0;
  double probability = 0;
};

// Row k of logits [B, C] scores example rows[k]: out[rows[k]] = the row's first maximum and its softmax
// probability 1 / sum_j exp(l_j - l_max). The tasks' accuracy and their predict modes both label through it, so a
// predict mode gives a run's own predictions again. rows.size() must be B and every rows[k] index out.
void argmax_rows(const Mat& logits, const std::vector<int>& rows, std::vector<LabelProbability>& out);

// accuracy, per_label_accuracy (recall of each gold label), confusion_gold_by_predicted [gold][predicted],
// majority_class_accuracy (of the gold labels) and `count_key` (the number of examples). Every label must be
// in [0, num_labels) and pred.size() == gold.size(); otherwise an Error.
nlohmann::json score_labels(const std::vector<int>& pred, const std::vector<int>& gold, int num_labels,
                            const std::string& count_key);

// What scoring a split of labelled examples gives: its metrics, and the predicted label of each example in order.
struct ScoredLabels {
  nlohmann::json metrics;
  std::vector<int> pred;
};

// The labels of `best` against the gold `.label` of each of `examples` (score_labels, counted as `count_key`), with
// "<count_key>_per_s": the examples over `seconds`, the time their labelling took.
template <class Examples>
ScoredLabels score_predictions(const std::vector<LabelProbability>& best, const Examples& examples, int num_labels,
                               const std::string& count_key, double seconds) {
  ScoredLabels s;
  std::vector<int> gold;
  for (const auto& e : examples) gold.push_back(e.label);
  for (const LabelProbability& b : best) s.pred.push_back(b.label);
  s.metrics = score_labels(s.pred, gold, num_labels, count_key);
  s.metrics[count_key + "_per_s"] = static_cast<double>(examples.size()) / std::max(seconds, 1e-9);
  return s;
}

// One line per example, in data order: names[pred[i]]. Label ids outside names are an Error.
std::string label_lines(const std::vector<int>& pred, const std::vector<std::string>& names);

// What a predict mode prints: "<name(label)>\t<probability, %.6g>\n" per example, in order.
std::string label_probability_lines(const std::vector<LabelProbability>& out,
                                    const std::function<std::string(int)>& name);

}  // namespace twin
