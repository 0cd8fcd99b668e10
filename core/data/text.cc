#include "data/text.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <utility>

#include "base/check.h"

namespace twin {

namespace {
constexpr std::size_t kChunk = 1 << 16;
constexpr std::string_view kBom = "\xEF\xBB\xBF";
constexpr std::string_view kIdeographicSpace = "\xE3\x80\x80";  // U+3000

bool is_ascii_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
}  // namespace

// The second-byte ranges are the RFC 3629 table: they exclude overlong forms (E0 80..9F, F0 80..8F),
// surrogates (ED A0..BF) and code points above U+10FFFF (F4 90..BF, F5..FF).
std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = at(i);
  if (c < 0x80) return 1;
  std::size_t n;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;  // continuation byte without a lead, C0/C1 (always overlong), or F5..FF
  }
  if (i + n > s.size()) return 0;
  if (at(i + 1) < lo || at(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if ((at(i + k) & 0xC0) != 0x80) return 0;
  return n;
}

struct LineReader::Impl {
  gzFile file = nullptr;
};

LineReader::LineReader(const std::string& path, std::string unit)
    : impl_(std::make_unique<Impl>()), path_(path), unit_(std::move(unit)) {
  namespace fs = std::filesystem;
  std::error_code ec;
  TW_CHECK(fs::exists(path, ec), "cannot open '", path, "': no such file");
  TW_CHECK(!fs::is_directory(path, ec), "cannot read '", path, "': it is a directory, expected a text file");
  errno = 0;
  impl_->file = gzopen(path.c_str(), "rb");
  TW_CHECK(impl_->file != nullptr, "cannot open '", path, "': ", errno ? std::strerror(errno) : "out of memory");
  gzbuffer(impl_->file, kChunk);
}

LineReader::~LineReader() {
  if (impl_->file) gzclose(impl_->file);
}

bool LineReader::fill() {
  if (eof_) return false;
  buf_.erase(0, pos_);
  pos_ = 0;
  const std::size_t old = buf_.size();
  buf_.resize(old + kChunk);
  const int got = gzread(impl_->file, buf_.data() + old, static_cast<unsigned>(kChunk));
  int err = Z_OK;
  const char* msg = gzerror(impl_->file, &err);
  if (got < 0 || (err != Z_OK && err != Z_BUF_ERROR))
    TW_FAIL("cannot read '", path_, "': ", err == Z_ERRNO ? std::strerror(errno) : msg);
  buf_.resize(old + static_cast<std::size_t>(got));
  if (got == 0) {
    // zlib reports a gzip stream cut short as Z_BUF_ERROR at the end, after handing over what it could decode.
    TW_CHECK(err != Z_BUF_ERROR, "cannot read '", path_, "': gzip data is truncated (", msg, ")");
    eof_ = true;
    return false;
  }
  return true;
}

bool LineReader::next(std::string& line) {
  std::size_t from = pos_;  // where to search for '\n'; bytes before it are known to hold none
  for (;;) {
    const std::size_t nl = buf_.find('\n', from);
    if (nl != std::string::npos) {
      line.assign(buf_, pos_, nl - pos_);
      pos_ = nl + 1;
      break;
    }
    const std::size_t pending = buf_.size() - pos_;  // fill() moves these bytes to the front
    if (!fill()) {
      if (pos_ == buf_.size()) return false;
      line.assign(buf_, pos_, std::string::npos);  // last line without '\n'
      pos_ = buf_.size();
      break;
    }
    from = pending;
  }
  strip_line_end(line, line_no_ == 0);
  ++line_no_;
  require_utf8(line, where(), unit_);
  return true;
}

void strip_line_end(std::string& line, bool first) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (first && line.starts_with(kBom)) line.erase(0, kBom.size());
}

std::vector<std::string> read_stdin_lines(const std::string& name) {
  std::vector<std::string> lines;
  for (std::string l; std::getline(std::cin, l);) {
    strip_line_end(l, lines.empty());
    lines.push_back(std::move(l));
    require_utf8(lines.back(), name + ":" + std::to_string(lines.size()));
  }
  return lines;
}

std::vector<std::string> read_lines(const std::string& path) {
  LineReader reader(path);
  std::vector<std::string> lines;
  std::string line;
  while (reader.next(line)) lines.push_back(line);
  return lines;
}

std::vector<std::string> split_whitespace(std::string_view line) {
  std::vector<std::string> out;
  std::size_t i = 0, start = 0;
  bool in_word = false;
  while (i < line.size()) {
    std::size_t space = 0;  // byte length of the separator at i, 0 if none
    if (is_ascii_space(static_cast<unsigned char>(line[i])))
      space = 1;
    else if (line.substr(i, kIdeographicSpace.size()) == kIdeographicSpace)
      space = kIdeographicSpace.size();
    if (space) {
      if (in_word) out.emplace_back(line.substr(start, i - start));
      in_word = false;
      i += space;
    } else {
      if (!in_word) start = i;
      in_word = true;
      ++i;
    }
  }
  if (in_word) out.emplace_back(line.substr(start));
  return out;
}

std::int64_t utf8_error_offset(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence_length(s, i);
    if (n == 0) return static_cast<std::int64_t>(i);
    i += n;
  }
  return -1;
}

namespace {
// The message of every UTF-8 check; `where` and `what` may be empty (utf8_chars has no file or line).
[[noreturn]] void fail_utf8(std::string_view text, std::size_t offset, std::string_view where,
                            std::string_view what) {
  const auto byte = static_cast<unsigned char>(text[offset]);
  static constexpr char kHex[] = "0123456789ABCDEF";
  TW_FAIL(where, where.empty() ? "" : ": ", "invalid UTF-8 at byte ", offset, what.empty() ? "" : " of the ", what,
          " (0x", kHex[byte >> 4], kHex[byte & 15],
          ", bytes count from 0); expected UTF-8 text, re-encode the file (e.g. iconv -f GB18030 -t UTF-8)");
}
}  // namespace

void require_utf8(std::string_view text, std::string_view where, std::string_view what) {
  const std::int64_t bad = utf8_error_offset(text);
  if (bad >= 0) fail_utf8(text, static_cast<std::size_t>(bad), where, what);
}

std::vector<std::string> utf8_chars(std::string_view s) {
  std::vector<std::string> out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence_length(s, i);
    if (n == 0) fail_utf8(s, i, "", "");
    out.emplace_back(s.substr(i, n));
    i += n;
  }
  return out;
}

std::vector<std::string> utf8_chars(std::string_view s, std::string_view where) {
  require_utf8(s, where, "word");
  return utf8_chars(s);
}

}  // namespace twin
