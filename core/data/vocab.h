// Word <-> id maps.
//
// Layout: the special words of VocabOptions come first, with ids 0..k-1 in the order given (by default
// <pad>=0 <unk>=1 <s>=2 </s>=3, so pad is 0 as IdMat padding assumes); corpus words follow. With
// `specials = {}` there are no reserved ids at all: this is the PTB language-model vocabulary, where <unk> and
// <eos> are ordinary corpus words counted like any other.
//
// Building from counts is deterministic: words are ordered by count (descending), ties broken by first
// appearance in the counted stream. Words with count < min_count are dropped, then the list is cut so that the
// whole vocabulary (specials included) has at most max_size entries. A corpus word equal to a special is not
// added twice (its count is ignored; the special keeps its reserved id).
//
// Unknown words: id() maps them to the `unk` word when the vocabulary contains it and `strict` is false;
// otherwise id() throws naming the word. The file format is one word per line, UTF-8, line k = id k-1.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/real.h"

namespace twin {

inline constexpr const char* kPadWord = "<pad>";
inline constexpr const char* kUnkWord = "<unk>";
inline constexpr const char* kBosWord = "<s>";
inline constexpr const char* kEosWord = "</s>";
// Ids of the default specials layout.
inline constexpr std::int32_t kPadId = 0;
inline constexpr std::int32_t kUnkId = 1;
inline constexpr std::int32_t kBosId = 2;
inline constexpr std::int32_t kEosId = 3;

namespace detail {
// Lets the word maps be queried with a string_view without building a std::string per lookup.
struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <typename V>
using StringMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;
}  // namespace detail

struct VocabOptions {
  std::vector<std::string> specials = {kPadWord, kUnkWord, kBosWord, kEosWord};
  std::string unk = kUnkWord;  // what unknown words map to, if present; "" = no fallback
  bool strict = false;         // true: id() of an unknown word throws even if `unk` is present
  std::int64_t min_count = 1;
  std::int64_t max_size = 0;   // total entries including specials; 0 = unlimited
};

// The options of a vocabulary whose only specials are <pad> = 0 and <unk> = 1 (an unknown word maps to <unk>):
// the word and character vocabularies of the classifier, snli, cws, ner and rc, built and loaded alike.
inline VocabOptions pad_unk_options(std::int64_t min_count = 1, std::int64_t max_size = 0) {
  return {{kPadWord, kUnkWord}, kUnkWord, false, min_count, max_size};
}

// Token counts in first-appearance order, the input of Vocab::from_counts.
class TokenCounts {
 public:
  void add(std::string_view word, std::int64_t n = 1);
  void add(const std::vector<std::string>& tokens) {
    for (const auto& t : tokens) add(t);
  }
  std::int64_t count(std::string_view word) const;  // 0 if never seen
  std::size_t distinct() const { return words_.size(); }
  const std::vector<std::pair<std::string, std::int64_t>>& entries() const { return words_; }

 private:
  std::vector<std::pair<std::string, std::int64_t>> words_;  // (word, count), first-appearance order
  detail::StringMap<std::size_t> index_;
};

class Vocab {
 public:
  // A growable vocabulary holding only the specials; add() words, then freeze().
  explicit Vocab(VocabOptions opts = {});

  static Vocab from_counts(const TokenCounts& counts, const VocabOptions& opts = {});  // returns frozen
  // Reads a saved vocabulary (frozen). Uses only opts.specials / unk / strict: the file must start with
  // exactly opts.specials (so ids mean what the caller expects); min_count and max_size are ignored.
  // Errors name the file and line: empty line, duplicate word, invalid UTF-8, missing special.
  static Vocab load(const std::string& path, const VocabOptions& opts = {});
  void save(const std::string& path) const;

  std::int32_t add(std::string_view word);  // returns the id (existing or new); throws when frozen
  void freeze() { frozen_ = true; }
  bool frozen() const { return frozen_; }

  std::int32_t id(std::string_view word) const;    // unknown -> unk id, or throws (see header comment)
  std::int32_t find(std::string_view word) const;  // -1 if absent; never maps to unk
  bool contains(std::string_view word) const { return find(word) >= 0; }
  const std::string& word(std::int32_t id) const;  // throws on an out-of-range id
  std::int32_t size() const { return static_cast<std::int32_t>(words_.size()); }

  std::int32_t unk_id() const { return unk_id_; }  // -1 when unknown words have no fallback
  std::int32_t special_count() const { return static_cast<std::int32_t>(opts_.specials.size()); }
  const VocabOptions& options() const { return opts_; }

  Ids encode(const std::vector<std::string>& tokens) const;
  std::vector<std::string> decode(const Ids& ids) const;

 private:
  std::int32_t append(std::string_view word);  // no frozen check, no duplicate check

  VocabOptions opts_;
  std::vector<std::string> words_;
  detail::StringMap<std::int32_t> index_;
  std::int32_t unk_id_ = -1;
  bool frozen_ = false;
};

}  // namespace twin
