// Plain-text input shared by every task: line readers (gzip read transparently), the whitespace tokeniser
// and the UTF-8 character split used by Chinese word segmentation (strict UTF-8; data/unicode_text.h has the
// lenient, Python-compatible helpers the MT metrics need).
//
// Lines: '\n' ends a line; a trailing '\r' is stripped (CRLF files), and so is a UTF-8 byte-order mark at the
// start of the file (Windows-made Chinese corpora often carry one, and it would glue itself to the first token).
// A final line without '\n' is still a line; "a\n" is one line, "a\n\n" is two (the second empty).
// Text is UTF-8, strictly (RFC 3629): every line is checked once, by the reader (require_utf8's message,
// "<file>:<line>: invalid UTF-8 at byte N of the line", the unit named as the format calls a line, e.g. a
// vocabulary's "word"), so no reader of a format checks again or forgets to. Byte positions in messages count
// from 0 within the line, as `xxd -s` and Python's bytes indexing do.
// Compressed input: files are opened through zlib's gzopen, which decompresses gzip data and passes any other
// file through unchanged, so "x.txt" and "x.txt.gz" are read by the same call whatever their names say.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace twin {

// Streams one file line by line, for corpora too large to hold twice. Errors name the path.
class LineReader {
 public:
  // Throws twin::Error if missing or unreadable. `unit` is what a line is called in the UTF-8 error ("line",
  // or "word" for a one-word-per-line file).
  explicit LineReader(const std::string& path, std::string unit = "line");
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  bool next(std::string& line);   // false at end of file; throws on a read/decompress error or invalid UTF-8
  std::int64_t line_no() const { return line_no_; }  // 1-based number of the line last returned
  const std::string& path() const { return path_; }
  std::string where() const { return path_ + ":" + std::to_string(line_no_); }  // "file:line" for messages

 private:
  bool fill();  // refill buf_ from the file; false at end of file

  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string path_;
  std::string buf_;
  std::size_t pos_ = 0;
  std::int64_t line_no_ = 0;
  bool eof_ = false;
  std::string unit_;
};

// Every line of a file (LineReader's conventions, UTF-8 checked).
std::vector<std::string> read_lines(const std::string& path);
// parse(line, where) for each line of `path` in order, where = "file:line" for its messages; LineReader's
// conventions. The one loop of the readers that turn each line into one record.
template <class T, class Parse>
std::vector<T> read_records(const std::string& path, Parse parse) {
  LineReader in(path);
  std::vector<T> out;
  std::string line;
  while (in.next(line)) out.push_back(parse(line, in.where()));
  return out;
}
// Every line of standard input by the same conventions (CR and a first-line BOM stripped, UTF-8 checked),
// named `name` in errors ("<stdin>:3: invalid UTF-8 ...").
std::vector<std::string> read_stdin_lines(const std::string& name = "<stdin>");
// The line-end conventions on one line read some other way: a trailing '\r' is dropped, and a BOM when `first`.
void strip_line_end(std::string& line, bool first);

// Splits on runs of ASCII whitespace (space, \t, \n, \v, \f, \r) and U+3000 IDEOGRAPHIC SPACE, which Chinese
// corpora use between words. Other Unicode spaces (e.g. U+00A0) are kept as word characters on purpose:
// corpora that contain them mean them as data. Never yields empty tokens.
std::vector<std::string> split_whitespace(std::string_view line);

// One string per Unicode code point. Strict UTF-8 (RFC 3629): rejects stray continuation bytes, truncated
// sequences, overlong forms, surrogates (U+D800..DFFF) and code points above U+10FFFF. Throws twin::Error
// naming the byte offset of the first bad sequence; callers that know the file and line use require_utf8.
std::vector<std::string> utf8_chars(std::string_view s);

// The same for one word whose origin the caller knows: invalid UTF-8 is require_utf8's Error "<where>: invalid
// UTF-8 at byte N of the word (0xHH, ...)", with `where` e.g. "file:line (gold word 3)".
std::vector<std::string> utf8_chars(std::string_view s, std::string_view where);

// Length (1 to 4) of the valid UTF-8 sequence that starts at s[i], or 0 when none does: the one decoder's
// table (RFC 3629: no overlong forms, surrogates or code points above U+10FFFF), which the strict checks here
// and the lenient helpers of data/unicode_text.h share.
std::size_t utf8_sequence_length(std::string_view s, std::size_t i);

// Byte offset of the first invalid sequence, or -1 when `s` is valid UTF-8.
std::int64_t utf8_error_offset(std::string_view s);
inline bool is_utf8_valid(std::string_view s) { return utf8_error_offset(s) < 0; }

// Throws twin::Error unless `text` is valid UTF-8: "<where>: invalid UTF-8 at byte N of the <what> (0xHH,
// bytes count from 0); expected UTF-8 text, ...". Every reader checks through this one function, so every
// message counts bytes the same way (from 0, as `xxd -s` and Python's bytes indexing do) and names the byte.
void require_utf8(std::string_view text, std::string_view where, std::string_view what = "line");

}  // namespace twin
