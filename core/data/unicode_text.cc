// Python-compatible UTF-8 helpers (see unicode_text.h).
#include "data/unicode_text.h"

#include "data/text.h"

namespace twin {

void utf8_append(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::size_t unicode_whitespace_length(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if ((c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20)) return 1;
  if (c < 0xC2) return 0;   // other ASCII, or a byte that cannot start one of the multi-byte spaces
  char32_t cp;
  const size_t len = utf8_decode(s, i, cp);
  const bool ws = cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
                  cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
  return ws ? len : 0;
}

namespace {

// Python's str.lower() on the blocks named in unicode_text.h; writes the result (one or two code points).
void lower_cp(char32_t cp, std::string& out) {
  char32_t lc = cp;
  if (cp >= 'A' && cp <= 'Z') {
    lc = cp + 32;
  } else if (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) {   // Latin-1 capitals (0xD7 is the multiplication sign)
    lc = cp + 0x20;
  } else if (cp == 0x130) {   // capital I with dot: Python gives "i" + combining dot above
    out += 'i';
    lc = 0x307;
  } else if (cp >= 0x100 && cp <= 0x17F) {   // Latin Extended-A: capital/small pairs, even or odd first
    const bool even_pair = (cp <= 0x137 && cp != 0x131) || (cp >= 0x14A && cp <= 0x177);
    const bool odd_pair = (cp >= 0x139 && cp <= 0x148) || (cp >= 0x179 && cp <= 0x17E);
    if (cp == 0x178) lc = 0xFF;   // Y with diaeresis pairs with Latin-1's 0xFF
    else if ((even_pair && cp % 2 == 0) || (odd_pair && cp % 2 == 1)) lc = cp + 1;
  } else if (cp >= 0x400 && cp <= 0x40F) {
    lc = cp + 0x50;
  } else if (cp >= 0x410 && cp <= 0x42F) {
    lc = cp + 0x20;
  } else if (cp == 0x1E9E) {   // capital sharp s
    lc = 0xDF;
  }
  utf8_append(out, lc);
}

}  // namespace

std::size_t utf8_decode(std::string_view s, std::size_t i, char32_t& cp) {
  const std::size_t len = utf8_sequence_length(s, i);   // data/text.h: the strict table, shared
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (len == 0) {
    cp = 0xFFFD;
    return 1;
  }
  char32_t v = len == 1 ? b0 : len == 2 ? b0 & 0x1F : len == 3 ? b0 & 0x0F : b0 & 0x07;
  for (std::size_t k = 1; k < len; ++k) v = (v << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  cp = v;
  return len;
}

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  std::string out;
  size_t pos = 0;
  for (size_t hit; (hit = s.find(from, pos)) != std::string::npos; pos = hit + from.size()) {
    out.append(s, pos, hit - pos);
    out += to;
  }
  if (pos == 0) return;   // no occurrence
  out.append(s, pos, std::string::npos);
  s.swap(out);
}

void replace_in_order(std::string& s, std::initializer_list<Replacement> replacements) {
  for (const Replacement& r : replacements) replace_all(s, r.from, r.to);
}

std::string join_with_spaces(const std::vector<std::string_view>& parts) {
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += ' ';
    out += p;
  }
  return out;
}

std::vector<std::string_view> split_unicode_whitespace(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0, start = std::string_view::npos;
  while (i < s.size()) {
    const size_t ws = unicode_whitespace_length(s, i);
    if (ws > 0) {
      if (start != std::string_view::npos) out.push_back(s.substr(start, i - start));
      start = std::string_view::npos;
      i += ws;
    } else {
      if (start == std::string_view::npos) start = i;
      ++i;
    }
  }
  if (start != std::string_view::npos) out.push_back(s.substr(start));
  return out;
}

std::string_view strip_unicode_whitespace(std::string_view s) {
  const auto parts = split_unicode_whitespace(s);
  if (parts.empty()) return {};
  const char* b = parts.front().data();
  const char* e = parts.back().data() + parts.back().size();
  return s.substr(static_cast<size_t>(b - s.data()), static_cast<size_t>(e - b));
}

std::string utf8_lower(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    char32_t cp;
    const size_t len = utf8_decode(s, i, cp);
    if (cp == 0xFFFD && len == 1 && static_cast<unsigned char>(s[i]) >= 0x80) out += s[i];   // invalid byte
    else lower_cp(cp, out);
    i += len;
  }
  return out;
}

}  // namespace twin
