// sacreBLEU 13a tokenizer, Moses-style detokenizer, UTF-8 helpers (see text_tok.h for the references).
#include "text_tok.h"

#include <map>

namespace twin::nmt {
namespace {

// ---- UTF-8 ----

// Decodes the code point starting at s[i] into cp and returns its byte length. An invalid or truncated
// sequence decodes as its first byte alone (cp = 0xFFFD), so callers copy such bytes through unchanged.
size_t decode(std::string_view s, size_t i, char32_t& cp) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  }
  const size_t len = b0 >= 0xF0 && b0 < 0xF8 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC2 && b0 < 0xE0 ? 2 : 0;
  if (len == 0 || i + len > s.size()) {
    cp = 0xFFFD;
    return 1;
  }
  char32_t v = len == 2 ? b0 & 0x1F : len == 3 ? b0 & 0x0F : b0 & 0x07;
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) {
      cp = 0xFFFD;
      return 1;
    }
    v = (v << 6) | (b & 0x3F);
  }
  cp = v;
  return len;
}

void encode(char32_t cp, std::string& out) {
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

// Byte length of the whitespace character at s[i] (Python's str.split() set), or 0 if s[i] starts none.
size_t whitespace_len(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if ((c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20)) return 1;
  if (c < 0xC2) return 0;   // other ASCII, or a byte that cannot start one of the multi-byte spaces
  char32_t cp;
  const size_t len = decode(s, i, cp);
  const bool ws = cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
                  cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
  return ws ? len : 0;
}

// Python's str.lower() on the blocks named in text_tok.h; writes the result (one or two code points).
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
  encode(lc, out);
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

std::string join(const std::vector<std::string_view>& parts) {
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += ' ';
    out += p;
  }
  return out;
}

// ---- 13a ----

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// tokenizer_re.py's first class [\{-\~\[-\` -\&\(-\+\:-\@\/]: the ASCII punctuation except ' , - . (and
// the space, which the class also holds; padding it changes nothing after the final whitespace split).
bool is_13a_symbol(char c) {
  return (c >= '{' && c <= '~') || (c >= '[' && c <= '`') || (c >= ' ' && c <= '&') || (c >= '(' && c <= '+') ||
         (c >= ':' && c <= '@') || c == '/';
}

// One re.sub pass of a two-character pattern (first, second) -> replacement, with Python's scanning: try at
// each position, on a match emit the replacement and resume after both characters, else copy one byte.
// Working on bytes gives the same result as Python on code points: the patterns' fixed characters are ASCII
// and never match a byte of a multi-byte character, and [^0-9] matches each byte of one as it would the whole.
template <class First, class Second, class Emit>
std::string sub_pairs(const std::string& s, First first, Second second, Emit emit) {
  std::string out;
  out.reserve(s.size() + s.size() / 4);
  size_t i = 0;
  while (i < s.size()) {
    if (i + 1 < s.size() && first(s[i]) && second(s[i + 1])) {
      emit(out, s[i], s[i + 1]);
      i += 2;
    } else {
      out += s[i++];
    }
  }
  return out;
}

// ---- detokenizer character classes ----

bool is_alpha(char32_t cp) {
  // ASCII letters, Latin-1 letters (not x and the division sign), Latin Extended-A/B, IPA, Greek, Cyrillic.
  return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') ||
         (cp >= 0xC0 && cp <= 0x2AF && cp != 0xD7 && cp != 0xF7) ||
         (cp >= 0x370 && cp <= 0x52F && cp != 0x37E && cp != 0x387) || cp == 0xAA || cp == 0xB5 || cp == 0xBA;
}
bool is_alnum(char32_t cp) { return is_alpha(cp) || (cp >= '0' && cp <= '9'); }
// Unicode category Sc (currency symbols), the ones that can plausibly appear: $ ¢ £ ¤ ¥ and U+20A0-U+20C0.
bool is_currency(char32_t cp) { return cp == '$' || (cp >= 0xA2 && cp <= 0xA5) || (cp >= 0x20A0 && cp <= 0x20C0); }
bool attaches_right(char32_t cp) {   // detokenizer.perl: ^[\p{IsSc}\(\[\{\¿\¡]+$
  return is_currency(cp) || cp == '(' || cp == '[' || cp == '{' || cp == 0xBF || cp == 0xA1;
}
bool attaches_left(char32_t cp) {   // detokenizer.perl: ^[\,\.\?\!\:\;\\\%\}\]\)]+$
  return cp == ',' || cp == '.' || cp == '?' || cp == '!' || cp == ':' || cp == ';' || cp == '\\' || cp == '%' ||
         cp == '}' || cp == ']' || cp == ')';
}
bool is_quote(char32_t cp) {   // detokenizer.perl: ^[\'\"„“`]+$, plus the closing ” it normalises with them
  return cp == '\'' || cp == '"' || cp == '`' || cp == 0x201E || cp == 0x201C || cp == 0x201D;
}
bool is_double_quote_mark(char32_t cp) { return cp == 0x201E || cp == 0x201C || cp == 0x201D; }

template <class Pred>
bool all_chars(std::string_view w, Pred pred) {
  for (size_t i = 0; i < w.size();) {
    char32_t cp;
    const size_t len = decode(w, i, cp);
    if (!pred(cp)) return false;
    i += len;
  }
  return !w.empty();
}

char32_t last_cp(std::string_view w) {
  size_t i = w.size();
  while (i > 0 && (static_cast<unsigned char>(w[i - 1]) & 0xC0) == 0x80) --i;
  char32_t cp = 0;
  if (i > 0) decode(w, i - 1, cp);
  return cp;
}

// The part of an English contraction after the apostrophe that Moses splits off in non-English text
// ("joe ' s", "can ' t"), optionally followed by a non-letter ("s." in "giorgio ' s.", "s-restaurant").
bool is_split_clitic(std::string_view w) {
  for (std::string_view c : {"s", "t", "d", "m", "ll", "re", "ve"}) {
    if (w.substr(0, c.size()) != c) continue;
    if (w.size() == c.size()) return true;
    char32_t cp;
    decode(w, c.size(), cp);
    if (!is_alpha(cp)) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string_view> split_unicode_whitespace(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0, start = std::string_view::npos;
  while (i < s.size()) {
    const size_t ws = whitespace_len(s, i);
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
    const size_t len = decode(s, i, cp);
    if (cp == 0xFFFD && len == 1 && static_cast<unsigned char>(s[i]) >= 0x80) out += s[i];   // invalid byte
    else lower_cp(cp, out);
    i += len;
  }
  return out;
}

std::string tokenize_13a(std::string_view line) {
  // Language-independent part (tokenizer_13a.py), str.replace calls in its order.
  std::string s(line);
  replace_all(s, "<skipped>", "");
  replace_all(s, "-\n", "");
  replace_all(s, "\n", " ");
  replace_all(s, "&quot;", "\"");
  replace_all(s, "&amp;", "&");
  replace_all(s, "&lt;", "<");
  replace_all(s, "&gt;", ">");
  s = " " + s + " ";

  // tokenizer_re.py: (1) pad every symbol with spaces.
  std::string t;
  t.reserve(s.size() * 2);
  for (char c : s) {
    if (is_13a_symbol(c)) {
      t += ' ';
      t += c;
      t += ' ';
    } else {
      t += c;
    }
  }
  auto not_digit = [](char c) { return !is_digit(c); };
  auto period_comma = [](char c) { return c == '.' || c == ','; };
  auto dash = [](char c) { return c == '-'; };
  // (2) ([^0-9])([\.,]) -> "\1 \2 ": period and comma unless preceded by a digit.
  t = sub_pairs(t, not_digit, period_comma, [](std::string& o, char a, char b) { o.append({a, ' ', b, ' '}); });
  // (3) ([\.,])([^0-9]) -> " \1 \2": period and comma unless followed by a digit.
  t = sub_pairs(t, period_comma, not_digit, [](std::string& o, char a, char b) { o.append({' ', a, ' ', b}); });
  // (4) ([0-9])(-) -> "\1 \2 ": dash when preceded by a digit.
  t = sub_pairs(t, is_digit, dash, [](std::string& o, char a, char b) { o.append({a, ' ', b, ' '}); });
  return join(split_unicode_whitespace(t));   // ' '.join(line.strip().split())
}

std::string moses_unescape(std::string_view s) {
  std::string t(s);
  replace_all(t, "&bar;", "|");
  replace_all(t, "&#124;", "|");
  replace_all(t, "&lt;", "<");
  replace_all(t, "&gt;", ">");
  replace_all(t, "&bra;", "[");
  replace_all(t, "&ket;", "]");
  replace_all(t, "&quot;", "\"");
  replace_all(t, "&apos;", "'");
  replace_all(t, "&#91;", "[");
  replace_all(t, "&#93;", "]");
  replace_all(t, "&amp;", "&");
  return t;
}

// detokenizer.perl's detokenize() for the languages we need. It walks the tokens keeping "the space to put
// before the next token" (prepend): a token that attaches right clears it, one that attaches left is written
// without it. Rules, first match wins:
//  1. [currency ( [ { ¿ ¡]+ attaches right; [, . ? ! : ; \ % } ] )]+ attaches left.            (Moses)
//  2. en: a token "'x..." (x a letter) after a token ending in a letter or digit attaches left: 's 're 've
//     'll 'd 'm, and 't (Moses tokenises "doesn't" as "doesn 't").                                (Moses)
//     en: "n't" (Penn-style split) attaches left too.                                             (ours)
//  3. Any language: a lone ' between a word and s/t/d/m/ll/re/ve joins both sides. Moses splits every
//     apostrophe in non-English text, so German has "joe ' s", "geht ' s", "can ' t" -> "joe's", "geht's",
//     "can't" (a few English training lines have "they ' re" too).                                (ours)
//  4. Quote tokens [' " „ “ ” `]+ (the three curly ones counted as "): each kind alternates opening (attach
//     right) and closing (attach left), counted per line.                                        (Moses)
//     Exception, when no quote of that kind is open: a lone ' after a word ending in s attaches left and is
//     not counted (en possessive "the jones' house", Moses); ours: also in German after s x z ß ("maus'
//     nase", "lass' uns"), and in any language after a digit ("about 4' in diameter", feet).
//  5. Anything else gets a space before it.
// Moses's CJK, Czech, French, Italian and Finnish rules are omitted (no such output here), as is its -u
// option (uppercasing the first letter): Multi30k's tok files and hence the model's output are lowercase.
// Whitespace runs are one separator (detokenizer.perl splits on single spaces, so "motorcycle  ." keeps a
// space before the period there). Checked against detokenizer.perl on Multi30k's val and test tok files: the
// outputs differ only on the lines where a rule marked (ours) fires (val: 1 en line, 3 de lines).
std::string detokenize(std::string_view line, std::string_view lang) {
  const bool en = lang == "en", de = lang == "de";
  // Moses: " @-@ " -> "-" (tokenizer.perl -a's hyphen split), then unescape, then split on spaces.
  std::string text = " " + join(split_unicode_whitespace(line)) + " ";
  replace_all(text, " @-@ ", "-");
  text = moses_unescape(text);
  const std::vector<std::string_view> w = split_unicode_whitespace(text);

  std::string out;
  std::map<std::string, int> quote_count;
  const char* prepend = " ";
  for (size_t i = 0; i < w.size(); ++i) {
    const std::string_view prev = i > 0 ? w[i - 1] : std::string_view();
    const char32_t prev_last = last_cp(prev);
    char32_t first = 0, second = 0;
    const size_t first_len = decode(w[i], 0, first);
    if (first_len < w[i].size()) decode(w[i], first_len, second);

    if (all_chars(w[i], attaches_right)) {
      out += prepend;
      out += w[i];
      prepend = "";
    } else if (all_chars(w[i], attaches_left)) {
      out += w[i];
      prepend = " ";
    } else if (en && i > 0 && is_alnum(prev_last) &&
               ((first == '\'' && is_alpha(second)) || (w[i] == "n't" && is_alpha(prev_last)))) {
      out += w[i];
      prepend = " ";
    } else if (w[i] == "'" && i > 0 && i + 1 < w.size() && is_alpha(prev_last) && is_split_clitic(w[i + 1])) {
      out += w[i];
      out += w[i + 1];
      ++i;
      prepend = " ";
    } else if (all_chars(w[i], is_quote)) {
      const std::string kind = all_chars(w[i], is_double_quote_mark) ? std::string("\"") : std::string(w[i]);
      int& count = quote_count[kind];
      const bool de_sibilant = prev_last == 's' || prev_last == 'x' || prev_last == 'z' || prev_last == 0xDF;
      const bool after_digit = prev_last >= '0' && prev_last <= '9';
      const bool possessive =
          w[i] == "'" && i > 0 && ((en && prev_last == 's') || (de && de_sibilant) || after_digit);
      if (count % 2 == 0 && possessive) {
        out += w[i];
        prepend = " ";
      } else if (count % 2 == 0) {   // opening
        out += prepend;
        out += w[i];
        prepend = "";
        ++count;
      } else {   // closing
        out += w[i];
        prepend = " ";
        ++count;
      }
    } else {
      out += prepend;
      out += w[i];
      prepend = " ";
    }
  }
  return std::string(strip_unicode_whitespace(out));
}

}  // namespace twin::nmt
