// SQuAD v1.1 exact match and F1, as the official evaluation script computes them (evaluate-v1.1.py of
// Rajpurkar et al. 2016, github.com/rajpurkar/SQuAD-explorer; read, not copied):
//   normalise(s) = collapse_whitespace(remove_articles(remove_punctuation(lowercase(s))))
//     lowercase: Python's str.lower(); remove_punctuation: drop the 32 ASCII characters of string.punctuation;
//     remove_articles: every whole word a, an, the (Python's \b(a|an|the)\b) replaced by one space;
//     collapse_whitespace: ' '.join(s.split()).
//   EM(p, g) = [normalise(p) == normalise(g)]
//   F1(p, g) over the tokens (normalise(.).split()): c = sum over words of min(count in p, count in g);
//     0 when c = 0, else 2 P R / (P + R) with P = c / |p|, R = c / |g|.
//   Per question the maximum over its ground truths; EM and F1 = 100 * (sum over the answered questions) /
//   (every question of the dataset): a question without a prediction scores 0 (the script warns about each);
//   a prediction whose id is not in the dataset is ignored (the script says nothing; here it is counted and
//   reported). The dataset's "version" is not checked (the script only warns when it is not 1.1).
// Floating point follows the script's order of operations (double, the sums in dataset order), so the two
// agree to the last bit on the same files.
//
// Unicode: str.lower() is a generated table of Python's single-code-point lowercase mappings
// (python_lower_table.inc, tools/python_lower_table.py) plus U+0130 and the final-sigma rule, whose "cased" and
// "case-ignorable" are approximated (squad_eval.cc); \w for the article boundaries is str.isalnum() or '_', by a
// generated table of Python's alphanumeric ranges (python_alnum_table.inc, the same tool).
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace twin {

// The script's normalize_answer(s).
std::string squad_normalize(std::string_view s);
// Python's str \w (isalnum or '_') for the code point, by the generated table (python_alnum_table.inc).
bool is_squad_word_char(char32_t cp);

bool squad_exact_match(std::string_view prediction, std::string_view ground_truth);
double squad_f1(std::string_view prediction, std::string_view ground_truth);

struct SquadQuestion {
  std::string id;
  std::vector<std::string> answers;   // ground-truth texts, in file order (at least one)
};

// Every question of a SQuAD JSON (data[].paragraphs[].qas[] with id and answers[].text), in file order. A
// missing or mistyped key, a question without answers or an id seen twice is an Error naming `file` and the
// item (data[0].paragraphs[2].qas[1] ...).
std::vector<SquadQuestion> squad_questions(const nlohmann::json& root, const std::string& file);

struct SquadScore {
  double exact_match = 0, f1 = 0;   // percentages over `total`
  long total = 0, answered = 0;
  std::vector<std::string> missing;   // dataset ids without a prediction (scored 0), in dataset order
  std::vector<std::string> unknown;   // prediction ids not in the dataset (ignored), sorted
  // {"exact_match", "f1", "total", "answered", "missing", "unknown", "first_missing", "first_unknown"}
  nlohmann::json to_json(std::size_t first = 10) const;
};

SquadScore squad_score(const std::vector<SquadQuestion>& questions,
                       const std::map<std::string, std::string>& predictions);

// {id: answer} of a prediction file (the official format); a value that is not a string is an Error naming
// `file` and the id.
std::map<std::string, std::string> squad_predictions(const nlohmann::json& root, const std::string& file);

// A dataset or prediction file parsed (gzip or plain, data/text.h); a file that is not JSON is an Error naming it.
nlohmann::json squad_read_json(const std::string& path);
// The same for the lines of a file already read (data/text.h's conventions), `name` naming it in the Error.
nlohmann::json squad_parse_json(const std::vector<std::string>& lines, const std::string& name);

// Both files read (gzip or plain, data/text.h) and scored; a file that is not JSON is an Error naming it.
SquadScore squad_score_files(const std::string& dataset_file, const std::string& prediction_file);

}  // namespace twin
