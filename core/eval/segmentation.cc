#include "eval/segmentation.h"

#include <cstdio>
#include <utility>

#include "base/check.h"
#include "base/file_io.h"
#include "data/text.h"

namespace twin {

namespace {

double ratio(long num, long den) { return den > 0 ? static_cast<double>(num) / static_cast<double>(den) : 0.0; }

// [start, end) character spans of the words, and their characters (concatenated in order) for the
// coverage check.
std::vector<std::pair<long, long>> spans(const std::vector<std::string>& words, std::vector<std::string>& chars,
                                         const char* side, const std::string& where) {
  std::vector<std::pair<long, long>> out;
  out.reserve(words.size());
  long pos = 0;
  for (size_t i = 0; i < words.size(); ++i) {
    std::vector<std::string> cs = utf8_chars(words[i], where + " (" + side + " word " + std::to_string(i + 1) + ")");
    TW_CHECK(!cs.empty(), where, ": ", side, " word ", i + 1, " is empty");
    out.emplace_back(pos, pos + static_cast<long>(cs.size()));
    pos += static_cast<long>(cs.size());
    for (std::string& c : cs) chars.push_back(std::move(c));
  }
  return out;
}

std::string excerpt(const std::vector<std::string>& chars, size_t from) {
  std::string s;
  for (size_t i = from; i < chars.size() && i < from + 12; ++i) s += chars[i];
  if (from + 12 < chars.size()) s += "...";
  return "\"" + s + "\"";
}

// What read_segmented splits on (split_whitespace): ASCII whitespace and U+3000 IDEOGRAPHIC SPACE.
bool is_separator(const std::string& ch) {
  return (ch.size() == 1 && (ch[0] == ' ' || (ch[0] >= '\t' && ch[0] <= '\r'))) || ch == "\xE3\x80\x80";
}

}  // namespace

void SegCounts::add(const SegCounts& o) {
  gold_words += o.gold_words;
  test_words += o.test_words;
  correct += o.correct;
  oov_gold += o.oov_gold;
  oov_correct += o.oov_correct;
  iv_gold += o.iv_gold;
  iv_correct += o.iv_correct;
}

double SegCounts::precision() const { return ratio(correct, test_words); }
double SegCounts::recall() const { return ratio(correct, gold_words); }
double SegCounts::f1() const {
  const double p = precision(), r = recall();
  return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
}
double SegCounts::oov_rate() const { return ratio(oov_gold, gold_words); }
double SegCounts::oov_recall() const { return ratio(oov_correct, oov_gold); }
double SegCounts::iv_recall() const { return ratio(iv_correct, iv_gold); }

nlohmann::json SegCounts::to_json() const {
  return {{"gold_words", gold_words}, {"test_words", test_words}, {"correct", correct},
          {"oov_gold", oov_gold},     {"oov_correct", oov_correct}, {"iv_gold", iv_gold},
          {"iv_correct", iv_correct}, {"precision", precision()},   {"recall", recall()},
          {"f1", f1()},               {"oov_rate", oov_rate()},     {"oov_recall", oov_recall()},
          {"iv_recall", iv_recall()}};
}

std::string SegCounts::summary() const {
  char buf[160];
  std::snprintf(buf, sizeof buf, "P %.2f R %.2f F %.2f OOV-rate %.2f R-oov %.2f R-iv %.2f", 100 * precision(),
                100 * recall(), 100 * f1(), 100 * oov_rate(), 100 * oov_recall(), 100 * iv_recall());
  return buf;
}

SegCounts score_sentence(const std::vector<std::string>& gold, const std::vector<std::string>& test,
                         const std::unordered_set<std::string>& train_words, const std::string& where) {
  std::vector<std::string> gc, tc;
  const auto gs = spans(gold, gc, "gold", where);
  const auto ts = spans(test, tc, "test", where);
  if (gc != tc) {
    size_t k = 0;
    while (k < gc.size() && k < tc.size() && gc[k] == tc[k]) ++k;
    TW_FAIL(where, ": the gold and test segmentations cover different characters (gold ", gc.size(),
            " characters, test ", tc.size(), "; they first differ at character ", k + 1, ": gold ", excerpt(gc, k),
            ", test ", excerpt(tc, k), ")");
  }
  SegCounts c;
  c.gold_words = static_cast<long>(gold.size());
  c.test_words = static_cast<long>(test.size());
  // Both span lists are sorted and each tiles [0, n): one merge pass finds the identical spans.
  size_t j = 0;
  for (size_t i = 0; i < gs.size(); ++i) {
    while (j < ts.size() && ts[j].first < gs[i].first) ++j;
    const bool found = j < ts.size() && ts[j] == gs[i];
    const bool oov = train_words.count(gold[i]) == 0;
    c.correct += found;
    (oov ? c.oov_gold : c.iv_gold) += 1;
    (oov ? c.oov_correct : c.iv_correct) += found;
  }
  return c;
}

SegCounts score_corpus(const std::vector<std::vector<std::string>>& gold,
                       const std::vector<std::vector<std::string>>& test,
                       const std::unordered_set<std::string>& train_words) {
  TW_CHECK(gold.size() == test.size(), "score_corpus: the gold segmentation has ", gold.size(),
           " sentences but the test one has ", test.size(), ": they must be line-parallel");
  SegCounts total;
  for (size_t i = 0; i < gold.size(); ++i)
    total.add(score_sentence(gold[i], test[i], train_words, "sentence " + std::to_string(i + 1)));
  return total;
}

std::unordered_set<std::string> read_word_list(const std::string& path) {
  LineReader in(path);
  std::unordered_set<std::string> words;
  std::string line;
  while (in.next(line)) {
    const std::vector<std::string> chars = utf8_chars(line);   // valid: the reader checked the line
    size_t a = 0, b = chars.size();
    while (a < b && is_separator(chars[a])) ++a;
    while (b > a && is_separator(chars[b - 1])) --b;
    if (a == b) continue;
    std::string w;
    for (size_t k = a; k < b; ++k) {
      TW_CHECK(!is_separator(chars[k]), in.where(), ": \"", line,
               "\" has whitespace inside: a word list holds one word per line");
      w += chars[k];
    }
    words.insert(std::move(w));
  }
  TW_CHECK(!words.empty(), path, ": no words: a training word list holds one word per line");
  return words;
}

std::vector<std::vector<std::string>> read_segmented(const std::string& path) {
  // ASCII whitespace (CR included) and U+3000 separate words; the reader checked the line's UTF-8.
  return read_records<std::vector<std::string>>(path, [](std::string_view line, const std::string&) {
    return split_whitespace(line);
  });
}

void write_segmented(const std::string& path, const std::vector<std::vector<std::string>>& sentences) {
  std::string text;
  for (size_t i = 0; i < sentences.size(); ++i) {
    const std::vector<std::string>& s = sentences[i];
    for (size_t k = 0; k < s.size(); ++k) {
      const std::string where = path + ": sentence " + std::to_string(i + 1) + " word " + std::to_string(k + 1);
      const std::vector<std::string> chars = utf8_chars(s[k], where);
      TW_CHECK(!chars.empty(), where, " is empty");
      for (const std::string& ch : chars)
        TW_CHECK(!is_separator(ch), where, " (\"", s[k], "\") holds whitespace: words are separated by it");
      if (k > 0) text += "  ";
      text += s[k];
    }
    text += "\r\n";
  }
  write_text_atomic(path, text);
}

}  // namespace twin
