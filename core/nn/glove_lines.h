// The lines of a GloVe-format vectors file, read by one rule wherever the suite reads such a file: the vectors
// (Embedding::load_glove, nn/embedding.h) and the words alone (the rc task's vocabulary, tasks/rc/rc_vocab.cc).
// The rule, line by line (the caller reads the lines; a CR before the newline is dropped here):
//   - fields are separated by spaces or tabs; a blank line holds no vector;
//   - the first non-blank line may be word2vec's header "<count> <dim>" (two integers): it holds no vector, and
//     its dim is checked against D when D is known, else it is D;
//   - D, the values per vector: given by the caller (the embedding table's width), else the first vector line's
//     number of fields minus one;
//   - a vector line is `word v1 ... vD`. Fields before the last D are the word's pieces, joined by single
//     spaces (glove.840B has words such as ". . ."), unless one of them is a number: such a line far more likely
//     has too many values, and is an error; fewer than D + 1 fields is an error too.
// Errors name where the line is (the caller's words for "file and line") and what was expected.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/real.h"

namespace twin {

class GloveLines {
 public:
  // "<file> line N" (or "file:N"), for line N of the file: the prefix of every error, before ": ".
  using Where = std::function<std::string(long line_no)>;
  // dim > 0: D is known; 0: D comes from the header or the first vector line.
  GloveLines(Index dim, Where where);

  // The next line of the file (the caller passes every line, in order). True when it holds a vector: word()
  // and values() are then set, values() viewing `line`, which must outlive them. False for a blank line or the
  // header. Throws Error for a line that breaks the rule above.
  bool read(std::string_view line);

  const std::string& word() const { return word_; }
  const std::vector<std::string_view>& values() const { return values_; }   // D of them, unparsed
  // values() as numbers into out[0, D): each a finite number, else an Error naming the value, word and line.
  void parse_values(Real* out) const;

  Index dim() const { return dim_; }         // 0 until known
  long line_no() const { return line_no_; }  // of the line last read, from 1
  std::string where() const { return where_(line_no_); }

 private:
  Index dim_;
  bool dim_given_;
  long dim_line_ = 0;   // the line D was taken from, when not given
  Where where_;
  long line_no_ = 0;
  bool seen_content_ = false;
  std::vector<std::string_view> fields_, values_;
  std::string word_;
};

// The whole token as a finite number (a leading '+' allowed; out of range rounds to 0, or to an infinity,
// which is refused); false otherwise.
bool parse_finite_real(std::string_view token, Real& out);

}  // namespace twin
