#include "eval/labels.h"

#include <cstdio>

#include <algorithm>
#include <cmath>

#include "base/check.h"

namespace twin {

void argmax_rows(const Mat& logits, const std::vector<int>& rows, std::vector<LabelProbability>& out) {
  TW_CHECK(static_cast<Index>(rows.size()) == logits.rows() && logits.cols() > 0, "argmax_rows: ", logits.rows(),
           "x", logits.cols(), " logits for ", rows.size(), " examples");
  for (Index k = 0; k < logits.rows(); ++k) {
    Index best = 0;   // the first maximum, as Eigen's maxCoeff picks it
    for (Index c = 1; c < logits.cols(); ++c)
      if (logits(k, c) > logits(k, best)) best = c;
    const double top = logits(k, best);
    double z = 0;
    for (Index c = 0; c < logits.cols(); ++c) z += std::exp(static_cast<double>(logits(k, c)) - top);
    const auto i = static_cast<size_t>(rows[static_cast<size_t>(k)]);
    TW_CHECK(i < out.size(), "argmax_rows: example ", i, " outside the ", out.size(), " given");
    out[i] = {static_cast<int>(best), 1.0 / z};
  }
}

nlohmann::json score_labels(const std::vector<int>& pred, const std::vector<int>& gold, int num_labels,
                            const std::string& count_key) {
  TW_CHECK(pred.size() == gold.size(), "score_labels: ", pred.size(), " predictions for ", gold.size(), " examples");
  TW_CHECK(num_labels > 0, "score_labels: num_labels must be positive, got ", num_labels);
  const auto C = static_cast<size_t>(num_labels);
  std::vector<std::vector<long>> confusion(C, std::vector<long>(C, 0));   // [gold][predicted]
  long correct = 0;
  for (size_t i = 0; i < gold.size(); ++i) {
    TW_CHECK(gold[i] >= 0 && gold[i] < num_labels && pred[i] >= 0 && pred[i] < num_labels, "score_labels: example ",
             i, " has gold ", gold[i], " and prediction ", pred[i], ", outside [0, ", num_labels, ")");
    correct += pred[i] == gold[i];
    ++confusion[static_cast<size_t>(gold[i])][static_cast<size_t>(pred[i])];
  }
  std::vector<double> per_label(C, 0.0);
  long majority = 0;
  for (size_t l = 0; l < C; ++l) {
    long n = 0;
    for (long c : confusion[l]) n += c;
    per_label[l] = n ? static_cast<double>(confusion[l][l]) / static_cast<double>(n) : 0.0;
    majority = std::max(majority, n);
  }
  const double N = static_cast<double>(gold.size());
  return {{"accuracy", gold.empty() ? 0.0 : static_cast<double>(correct) / N},
          {count_key, gold.size()},
          {"per_label_accuracy", per_label},
          {"confusion_gold_by_predicted", confusion},
          {"majority_class_accuracy", gold.empty() ? 0.0 : static_cast<double>(majority) / N}};
}

std::string label_lines(const std::vector<int>& pred, const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < pred.size(); ++i) {
    TW_CHECK(pred[i] >= 0 && static_cast<size_t>(pred[i]) < names.size(), "label_lines: prediction ", i, " is ",
             pred[i], ", outside the ", names.size(), " label names");
    out += names[static_cast<size_t>(pred[i])];
    out += '\n';
  }
  return out;
}

std::string label_probability_lines(const std::vector<LabelProbability>& out,
                                    const std::function<std::string(int)>& name) {
  std::string text;
  char buf[40];
  for (const LabelProbability& p : out) {
    std::snprintf(buf, sizeof buf, "\t%.6g\n", p.probability);
    text += name(p.label);
    text += buf;
  }
  return text;
}

}  // namespace twin
