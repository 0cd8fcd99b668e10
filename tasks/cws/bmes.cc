#include "bmes.h"

#include "base/check.h"
#include "data/text.h"

namespace twin::cws {

int tag_from_letter(char c, const std::string& where) {
  switch (c) {
    case 'B': return kB;
    case 'M': return kM;
    case 'E': return kE;
    case 'S': return kS;
    default: TW_FAIL(where, ": tag '", std::string(1, c), "' is not one of B, M, E, S");
  }
}

std::vector<int> words_to_tags(const std::vector<std::string>& words, const std::string& where) {
  std::vector<int> tags;
  for (const std::string& w : words) {
    const size_t n = utf8_chars(w, where).size();
    TW_CHECK(n > 0, where, ": empty word");
    if (n == 1) {
      tags.push_back(kS);
      continue;
    }
    tags.push_back(kB);
    for (size_t k = 1; k + 1 < n; ++k) tags.push_back(kM);
    tags.push_back(kE);
  }
  return tags;
}

std::vector<std::string> tags_to_words(const std::vector<std::string>& chars, const std::vector<int>& tags) {
  TW_CHECK(chars.size() == tags.size(), "tags_to_words: ", chars.size(), " characters but ", tags.size(), " tags");
  std::vector<std::string> words;
  std::string cur;
  for (size_t i = 0; i < chars.size(); ++i) {
    const int t = tags[i];
    if ((t == kB || t == kS) && !cur.empty()) {   // a new word starts: close the open one
      words.push_back(std::move(cur));
      cur.clear();
    }
    cur += chars[i];
    if (t == kE || t == kS) {
      words.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) words.push_back(std::move(cur));
  return words;
}

Mat bmes_allowed_transitions() {
  Mat a = Mat::Zero(kNumTags, kNumTags);
  a(kB, kM) = a(kB, kE) = 1;
  a(kM, kM) = a(kM, kE) = 1;
  a(kE, kB) = a(kE, kS) = 1;
  a(kS, kB) = a(kS, kS) = 1;
  return a;
}

Mat bmes_allowed_start() {
  Mat a = Mat::Zero(1, kNumTags);
  a(0, kB) = a(0, kS) = 1;
  return a;
}

Mat bmes_allowed_end() {
  Mat a = Mat::Zero(1, kNumTags);
  a(0, kE) = a(0, kS) = 1;
  return a;
}

CrfConstraint bmes_constraint() { return {bmes_allowed_transitions(), bmes_allowed_start(), bmes_allowed_end()}; }

}  // namespace twin::cws
