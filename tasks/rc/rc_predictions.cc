#include "rc_predictions.h"

#include "base/check.h"
#include "base/file_io.h"

namespace twin::rc {

Predictions predictions_of(const std::vector<RcExample>& examples, const std::vector<std::pair<int, int>>& spans) {
  TW_CHECK(spans.size() == examples.size(), "rc predictions: ", spans.size(), " spans for ", examples.size(),
           " questions");
  Predictions p;
  for (std::size_t k = 0; k < examples.size(); ++k) {
    const RcExample& e = examples[k];
    const auto [first, last] = spans[k];
    TW_CHECK(first >= 0 && first <= last && last < e.paragraph->passage.size(), "rc predictions: question '", e.id,
             "': predicted span [", first, ", ", last, "] outside its passage of ", e.paragraph->passage.size(),
             " tokens or first > last");
    p[e.id] = answer_text(*e.paragraph, first, last);
  }
  return p;
}

std::string prediction_text(const Predictions& p) {
  // nlohmann::json keeps object keys sorted; dump() writes UTF-8 as is (the script's json.load reads both).
  return nlohmann::json(p).dump() + "\n";
}

void write_predictions(const std::string& path, const Predictions& p) { write_text_atomic(path, prediction_text(p)); }

Predictions read_predictions(const std::string& path) { return squad_predictions(squad_read_json(path), path); }

SquadScore score_predictions(const RcSplit& split, const Predictions& p) {
  TW_CHECK(!split.questions.empty(), split.path, ": no questions to score");
  return squad_score(split.questions, p);
}

SquadScore score_prediction_file(const RcSplit& split, const std::string& path) {
  return score_predictions(split, read_predictions(path));
}

std::string prediction_report(const std::string& path, const SquadScore& s, std::size_t first) {
  auto head = [first](const std::vector<std::string>& ids) {
    std::string out;
    for (std::size_t k = 0; k < ids.size() && k < first; ++k) out += (k ? ", " : "") + ids[k];
    return out + (ids.size() > first ? ", ..." : "");
  };
  std::string r = detail::cat(path, ": ", s.total, " questions, ", s.answered, " answered; ", s.missing.size(),
                              " without a prediction scored 0 (as evaluate-v1.1.py's 'Unanswered question ... will "
                              "receive score 0')");
  if (!s.missing.empty()) r += " (first: " + head(s.missing) + ")";
  r += detail::cat("; ", s.unknown.size(), " id(s) not in the dataset ignored (as the script does)");
  if (!s.unknown.empty()) r += " (first: " + head(s.unknown) + ")";
  return r;
}

}  // namespace twin::rc
