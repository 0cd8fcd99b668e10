// The official SQuAD v1.1 EM / F1 (squad_eval.h), step for step in the script's order.
#include "eval/squad_eval.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "base/check.h"
#include "data/text.h"
#include "data/unicode_text.h"

namespace twin {

namespace {

// Python's string.punctuation: the 32 printable ASCII characters that are neither letters, digits nor space.
bool is_ascii_punctuation(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x80 && std::ispunct(u);
}

// The code point at s[i] and its byte length (an invalid byte: itself, length 1, never a word character).
char32_t cp_at(std::string_view s, std::size_t i, std::size_t& len) {
  char32_t cp = 0;
  len = utf8_decode(s, i, cp);
  return cp;
}

// The script's remove_articles: re.sub(r'\b(a|an|the)\b', ' ', s) on a str. A match needs a non-word
// character (or the start) before it and a non-word character (or the end) after it; matches never overlap,
// and the boundary test looks at the original text, as re.sub does.
std::string remove_articles(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool prev_word = false;
  std::size_t i = 0;
  while (i < s.size()) {
    if (!prev_word) {
      bool matched = false;
      for (std::string_view art : {"a", "an", "the"}) {
        if (s.substr(i, art.size()) != art) continue;
        std::size_t len = 0;
        const std::size_t j = i + art.size();
        if (j < s.size() && is_squad_word_char(cp_at(s, j, len))) continue;
        out += ' ';
        i = j;
        prev_word = true;   // the article's last letter
        matched = true;
        break;
      }
      if (matched) continue;
    }
    std::size_t len = 0;
    const char32_t cp = cp_at(s, i, len);
    prev_word = is_squad_word_char(cp) && !(cp == 0xFFFD && len == 1);
    out.append(s.substr(i, len));
    i += len;
  }
  return out;
}

std::vector<std::string_view> tokens(const std::string& normalised) { return split_unicode_whitespace(normalised); }

struct LowerPair {
  char32_t from, to;
};
// Every non-ASCII code point whose str.lower() is one other code point (generated, tools/python_lower_table.py).
constexpr LowerPair kPythonLower[] = {
#include "eval/python_lower_table.inc"
};

struct AlnumRange {
  char32_t first, last;
};
// The non-ASCII code points where str.isalnum() holds, as ranges (generated, tools/python_lower_table.py).
constexpr AlnumRange kPythonAlnum[] = {
#include "eval/python_alnum_table.inc"
};

// The table's lowercase for cp, or cp itself.
char32_t lower_cp(char32_t cp) {
  const auto* it = std::lower_bound(std::begin(kPythonLower), std::end(kPythonLower), cp,
                                    [](const LowerPair& p, char32_t c) { return p.from < c; });
  return it != std::end(kPythonLower) && it->from == cp ? it->to : cp;
}

// Cased in Python's sense, approximated: a letter with another case (in the table either way, or ASCII).
bool is_cased(char32_t cp) {
  if (cp < 0x80) return std::isalpha(static_cast<int>(cp)) != 0;
  if (lower_cp(cp) != cp) return true;
  return std::any_of(std::begin(kPythonLower), std::end(kPythonLower), [cp](const LowerPair& p) { return p.to == cp; });
}

// Case-ignorable, approximated: the apostrophes, full stop, colon and middle dot Unicode lists, and combining marks.
bool is_case_ignorable(char32_t cp) {
  return cp == '\'' || cp == '.' || cp == ':' || cp == 0xB7 || cp == 0x2019 || (cp >= 0x300 && cp <= 0x36F);
}

// Python's str.lower(): the generated table, U+0130 -> "i" + U+0307, and capital sigma -> final sigma at the end
// of a word (a cased letter before it, none after it, case-ignorables skipped both ways). Invalid bytes are copied.
std::string python_lower(std::string_view s) {
  struct Cp {
    char32_t cp;
    std::size_t pos, len;
  };
  std::vector<Cp> cps;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t len = 0;
    const char32_t cp = cp_at(s, i, len);
    cps.push_back({cp == 0xFFFD && len == 1 ? char32_t(0x110000) : cp, i, len});   // 0x110000: an invalid byte
    i += len;
  }
  std::string out;
  out.reserve(s.size());
  for (std::size_t k = 0; k < cps.size(); ++k) {
    const char32_t cp = cps[k].cp;
    if (cp == 0x110000) {
      out.append(s.substr(cps[k].pos, cps[k].len));
    } else if (cp < 0x80) {
      out += static_cast<char>(std::tolower(static_cast<int>(cp)));
    } else if (cp == 0x130) {
      out += 'i';
      utf8_append(out, 0x307);
    } else if (cp == 0x3A3) {
      std::size_t b = k, f = k + 1;
      while (b > 0 && is_case_ignorable(cps[b - 1].cp)) --b;
      while (f < cps.size() && is_case_ignorable(cps[f].cp)) ++f;
      const bool final = b > 0 && is_cased(cps[b - 1].cp) && !(f < cps.size() && is_cased(cps[f].cp));
      utf8_append(out, final ? 0x3C2 : 0x3C3);
    } else {
      utf8_append(out, lower_cp(cp));
    }
  }
  return out;
}

}  // namespace

bool is_squad_word_char(char32_t cp) {
  if (cp < 0x80) return std::isalnum(static_cast<int>(cp)) || cp == '_';
  const auto* it = std::upper_bound(std::begin(kPythonAlnum), std::end(kPythonAlnum), cp,
                                    [](char32_t c, const AlnumRange& r) { return c < r.first; });
  return it != std::begin(kPythonAlnum) && cp <= std::prev(it)->last;
}

std::string squad_normalize(std::string_view s) {
  std::string lower = python_lower(s), no_punct;
  no_punct.reserve(lower.size());
  for (char c : lower)
    if (!is_ascii_punctuation(c)) no_punct += c;   // a UTF-8 sequence holds no ASCII byte: removal is byte-wise
  const std::string no_art = remove_articles(no_punct);
  return join_with_spaces(split_unicode_whitespace(no_art));
}

bool squad_exact_match(std::string_view prediction, std::string_view ground_truth) {
  return squad_normalize(prediction) == squad_normalize(ground_truth);
}

double squad_f1(std::string_view prediction, std::string_view ground_truth) {
  const std::string p = squad_normalize(prediction), g = squad_normalize(ground_truth);
  const std::vector<std::string_view> pt = tokens(p), gt = tokens(g);
  std::map<std::string_view, long> pc, gc;
  for (auto t : pt) ++pc[t];
  for (auto t : gt) ++gc[t];
  long same = 0;
  for (const auto& [w, n] : pc) {
    auto it = gc.find(w);
    if (it != gc.end()) same += std::min(n, it->second);
  }
  if (same == 0) return 0;
  const double precision = 1.0 * static_cast<double>(same) / static_cast<double>(pt.size());
  const double recall = 1.0 * static_cast<double>(same) / static_cast<double>(gt.size());
  return (2 * precision * recall) / (precision + recall);
}

namespace {

const nlohmann::json& need(const nlohmann::json& obj, const char* key, bool array, const std::string& file,
                           const std::string& where) {
  TW_CHECK(obj.is_object(), file, ": ", where, ": a JSON ", obj.type_name(), ", expected an object");
  auto it = obj.find(key);
  TW_CHECK(it != obj.end(), file, ": ", where, ": no '", key, "': expected SQuAD's layout (data[].paragraphs[].qas[])");
  TW_CHECK(array ? it->is_array() : it->is_string(), file, ": ", where, ".", key, ": a JSON ", it->type_name(),
           ", expected ", array ? "an array" : "a string");
  return *it;
}

}  // namespace

nlohmann::json squad_parse_json(const std::vector<std::string>& lines, const std::string& name) {
  std::string text;
  for (const std::string& line : lines) (text += line) += '\n';   // JSON strings hold no raw newline
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    TW_FAIL(name, ": not JSON (", e.what(), ")");
  }
}

nlohmann::json squad_read_json(const std::string& path) { return squad_parse_json(read_lines(path), path); }

std::vector<SquadQuestion> squad_questions(const nlohmann::json& root, const std::string& file) {
  std::vector<SquadQuestion> out;
  std::map<std::string, std::string> seen;
  const auto& data = need(root, "data", true, file, "top level");
  for (std::size_t a = 0; a < data.size(); ++a) {
    const std::string wa = "data[" + std::to_string(a) + "]";
    const auto& paras = need(data[a], "paragraphs", true, file, wa);
    for (std::size_t p = 0; p < paras.size(); ++p) {
      const std::string wp = wa + ".paragraphs[" + std::to_string(p) + "]";
      const auto& qas = need(paras[p], "qas", true, file, wp);
      for (std::size_t q = 0; q < qas.size(); ++q) {
        const std::string wq = wp + ".qas[" + std::to_string(q) + "]";
        SquadQuestion sq;
        sq.id = need(qas[q], "id", false, file, wq).get<std::string>();
        auto [it, fresh] = seen.emplace(sq.id, wq);
        TW_CHECK(fresh, file, ": ", wq, ": duplicate id '", sq.id, "', first at ", it->second);
        const auto& answers = need(qas[q], "answers", true, file, wq);
        TW_CHECK(!answers.empty(), file, ": ", wq, " (id ", sq.id, "): no answer (the script's max over none fails)");
        for (std::size_t k = 0; k < answers.size(); ++k)
          sq.answers.push_back(
              need(answers[k], "text", false, file, wq + ".answers[" + std::to_string(k) + "]").get<std::string>());
        out.push_back(std::move(sq));
      }
    }
  }
  return out;
}

std::map<std::string, std::string> squad_predictions(const nlohmann::json& root, const std::string& file) {
  TW_CHECK(root.is_object(), file, ": a JSON ", root.type_name(), ", expected an object {question id: answer}");
  std::map<std::string, std::string> out;
  for (const auto& [id, v] : root.items()) {
    TW_CHECK(v.is_string(), file, ": id '", id, "': a JSON ", v.type_name(), ", expected the answer string");
    out.emplace(id, v.get<std::string>());
  }
  return out;
}

SquadScore squad_score(const std::vector<SquadQuestion>& questions,
                       const std::map<std::string, std::string>& predictions) {
  SquadScore s;
  double f1 = 0;
  long em = 0;   // the script adds bools: an integer sum
  std::set<std::string> ids;
  for (const SquadQuestion& q : questions) {
    ids.insert(q.id);
    ++s.total;
    auto it = predictions.find(q.id);
    if (it == predictions.end()) {
      s.missing.push_back(q.id);
      continue;
    }
    ++s.answered;
    bool best_em = false;
    double best_f1 = 0;
    for (std::size_t k = 0; k < q.answers.size(); ++k) {
      const double f = squad_f1(it->second, q.answers[k]);
      best_em = best_em || squad_exact_match(it->second, q.answers[k]);
      best_f1 = k == 0 ? f : std::max(best_f1, f);
    }
    em += best_em ? 1 : 0;
    f1 += best_f1;
  }
  for (const auto& [id, _] : predictions)
    if (!ids.count(id)) s.unknown.push_back(id);
  if (s.total > 0) {
    s.exact_match = 100.0 * static_cast<double>(em) / static_cast<double>(s.total);
    s.f1 = 100.0 * f1 / static_cast<double>(s.total);
  }
  return s;
}

nlohmann::json SquadScore::to_json(std::size_t first) const {
  auto head = [first](const std::vector<std::string>& v) {
    return std::vector<std::string>(v.begin(), v.begin() + static_cast<long>(std::min(first, v.size())));
  };
  return {{"exact_match", exact_match}, {"f1", f1},           {"total", total},
          {"answered", answered},       {"missing", missing.size()}, {"unknown", unknown.size()},
          {"first_missing", head(missing)}, {"first_unknown", head(unknown)}};
}

SquadScore squad_score_files(const std::string& dataset_file, const std::string& prediction_file) {
  const auto questions = squad_questions(squad_read_json(dataset_file), dataset_file);
  TW_CHECK(!questions.empty(), dataset_file, ": no question (the script would divide by zero)");
  return squad_score(questions, squad_predictions(squad_read_json(prediction_file), prediction_file));
}

}  // namespace twin
