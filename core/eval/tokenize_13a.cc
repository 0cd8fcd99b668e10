// sacreBLEU's 13a tokenizer (see tokenize_13a.h for the references followed).
#include "eval/tokenize_13a.h"

#include "data/unicode_text.h"

namespace twin {
namespace {

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

}  // namespace

std::string tokenize_13a(std::string_view line) {
  // Language-independent part (tokenizer_13a.py), str.replace calls in its order.
  std::string s(line);
  replace_in_order(s, {{"<skipped>", ""}, {"-\n", ""}, {"\n", " "}, {"&quot;", "\""}, {"&amp;", "&"}, {"&lt;", "<"},
                       {"&gt;", ">"}});
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
  return join_with_spaces(split_unicode_whitespace(t));   // ' '.join(line.strip().split())
}

}  // namespace twin
