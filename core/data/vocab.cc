#include "data/vocab.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>

#include "base/check.h"
#include "data/text.h"

namespace twin {

namespace {
// Empty strings, line breaks and invalid UTF-8 cannot survive the one-word-per-line file, so they are
// rejected when the word enters the vocabulary rather than when it is saved or loaded back.
void check_word(std::string_view word, const char* what) {
  TW_CHECK(!word.empty(), what, ": empty word; vocabulary words must be non-empty");
  TW_CHECK(word.find_first_of("\r\n") == std::string_view::npos, what, ": word '", word,
           "' contains a line break; one word per line cannot store it");
  require_utf8(word, what, "word");
}
}  // namespace

void TokenCounts::add(std::string_view word, std::int64_t n) {
  TW_CHECK(n >= 0, "TokenCounts::add: count ", n, " for '", word, "' must be >= 0");
  auto it = index_.find(word);
  if (it == index_.end()) {
    index_.emplace(std::string(word), words_.size());
    words_.emplace_back(std::string(word), n);
  } else {
    words_[it->second].second += n;
  }
}

std::int64_t TokenCounts::count(std::string_view word) const {
  auto it = index_.find(word);
  return it == index_.end() ? 0 : words_[it->second].second;
}

Vocab::Vocab(VocabOptions opts) : opts_(std::move(opts)) {
  TW_CHECK(opts_.min_count >= 0, "VocabOptions::min_count is ", opts_.min_count, "; expected >= 0");
  TW_CHECK(opts_.max_size == 0 || opts_.max_size >= static_cast<std::int64_t>(opts_.specials.size()),
           "VocabOptions::max_size is ", opts_.max_size, " but there are ", opts_.specials.size(),
           " specials; expected 0 (unlimited) or at least the number of specials");
  for (const auto& s : opts_.specials) {
    check_word(s, "VocabOptions::specials");
    TW_CHECK(find(s) < 0, "VocabOptions::specials lists '", s, "' twice");
    append(s);
  }
}

std::int32_t Vocab::append(std::string_view word) {
  TW_CHECK(words_.size() < static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()),
           "vocabulary exceeds the int32 id range");
  const auto id = static_cast<std::int32_t>(words_.size());
  words_.emplace_back(word);
  index_.emplace(words_.back(), id);
  if (!opts_.strict && !opts_.unk.empty() && word == opts_.unk) unk_id_ = id;
  return id;
}

std::int32_t Vocab::add(std::string_view word) {
  const std::int32_t existing = find(word);
  if (existing >= 0) return existing;
  TW_CHECK(!frozen_, "cannot add '", word, "': the vocabulary is frozen");
  check_word(word, "Vocab::add");
  return append(word);
}

Vocab Vocab::from_counts(const TokenCounts& counts, const VocabOptions& opts) {
  Vocab v(opts);
  std::vector<const std::pair<std::string, std::int64_t>*> kept;
  for (const auto& e : counts.entries())
    if (e.second >= opts.min_count && !v.contains(e.first)) kept.push_back(&e);
  // Stable: entries() is in first-appearance order, which breaks count ties.
  std::stable_sort(kept.begin(), kept.end(), [](auto* a, auto* b) { return a->second > b->second; });
  std::size_t room = kept.size();
  if (opts.max_size > 0) room = std::min(room, static_cast<std::size_t>(opts.max_size) - v.words_.size());
  for (std::size_t i = 0; i < room; ++i) {
    check_word(kept[i]->first, "Vocab::from_counts");
    v.append(kept[i]->first);
  }
  v.freeze();
  return v;
}

Vocab Vocab::load(const std::string& path, const VocabOptions& opts) {
  Vocab v(opts);
  const std::size_t k = opts.specials.size();
  LineReader reader(path, "word");   // UTF-8 checked by the reader, each line named a word
  std::string line;
  while (reader.next(line)) {
    const std::int64_t n = reader.line_no();
    TW_CHECK(!line.empty(), reader.where(), ": empty line in vocabulary; expected one word per line");
    TW_CHECK(line.find('\n') == std::string::npos, reader.where(), ": unexpected line break");
    if (static_cast<std::size_t>(n) <= k) {
      TW_CHECK(line == opts.specials[n - 1], reader.where(), ": expected special word '", opts.specials[n - 1],
               "' (id ", n - 1, ") but found '", line,
               "'; the file was saved with different VocabOptions::specials (PTB-style vocabularies use {})");
      continue;  // already added by the constructor
    }
    const std::int32_t dup = v.find(line);
    TW_CHECK(dup < 0, reader.where(), ": duplicate word '", line, "' (first on line ", dup + 1, ")");
    v.append(line);
  }
  TW_CHECK(static_cast<std::size_t>(reader.line_no()) >= k, path, ": has ", reader.line_no(),
           " lines but VocabOptions::specials lists ", k, " words that must come first");
  v.freeze();
  return v;
}

void Vocab::save(const std::string& path) const {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  TW_CHECK(out.good(), "cannot write vocabulary '", path, "': ", std::strerror(errno));
  for (const auto& w : words_) out << w << '\n';
  out.close();
  TW_CHECK(!out.fail(), "writing vocabulary '", path, "' failed: ", std::strerror(errno));
}

std::int32_t Vocab::find(std::string_view word) const {
  auto it = index_.find(word);
  return it == index_.end() ? -1 : it->second;
}

std::int32_t Vocab::id(std::string_view word) const {
  const std::int32_t i = find(word);
  if (i >= 0) return i;
  if (unk_id_ >= 0) return unk_id_;
  if (opts_.strict) TW_FAIL("word '", word, "' is not in the vocabulary (strict mode, size ", size(), ")");
  TW_FAIL("word '", word, "' is not in the vocabulary (size ", size(), ") and there is no '", opts_.unk,
          "' entry to map it to; HINT: add VocabOptions::unk to the specials or to the corpus");
}

const std::string& Vocab::word(std::int32_t id) const {
  TW_CHECK(id >= 0 && id < size(), "id ", id, " is outside the vocabulary [0, ", size(), ")");
  return words_[static_cast<std::size_t>(id)];
}

Ids Vocab::encode(const std::vector<std::string>& tokens) const {
  Ids ids;
  ids.reserve(tokens.size());
  for (const auto& t : tokens) ids.push_back(id(t));
  return ids;
}

std::vector<std::string> Vocab::decode(const Ids& ids) const {
  std::vector<std::string> words;
  words.reserve(ids.size());
  for (auto i : ids) words.push_back(word(i));
  return words;
}

}  // namespace twin
