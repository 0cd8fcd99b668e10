// Moses-style detokenizer (see text_tok.h for the references).
#include "score/text_tok.h"

#include <map>

#include "data/unicode_text.h"

namespace twin::nmt {
namespace {

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
    const size_t len = utf8_decode(w, i, cp);
    if (!pred(cp)) return false;
    i += len;
  }
  return !w.empty();
}

char32_t last_cp(std::string_view w) {
  size_t i = w.size();
  while (i > 0 && (static_cast<unsigned char>(w[i - 1]) & 0xC0) == 0x80) --i;
  char32_t cp = 0;
  if (i > 0) utf8_decode(w, i - 1, cp);
  return cp;
}

// The part of an English contraction after the apostrophe that Moses splits off in non-English text
// ("joe ' s", "can ' t"), optionally followed by a non-letter ("s." in "giorgio ' s.", "s-restaurant").
bool is_split_clitic(std::string_view w) {
  for (std::string_view c : {"s", "t", "d", "m", "ll", "re", "ve"}) {
    if (w.substr(0, c.size()) != c) continue;
    if (w.size() == c.size()) return true;
    char32_t cp;
    utf8_decode(w, c.size(), cp);
    if (!is_alpha(cp)) return true;
  }
  return false;
}

}  // namespace

std::string moses_unescape(std::string_view s) {
  std::string t(s);
  replace_in_order(t, {{"&bar;", "|"}, {"&#124;", "|"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&bra;", "["}, {"&ket;", "]"},
                       {"&quot;", "\""}, {"&apos;", "'"}, {"&#91;", "["}, {"&#93;", "]"}, {"&amp;", "&"}});
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
  std::string text = " " + join_with_spaces(split_unicode_whitespace(line)) + " ";
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
    const size_t first_len = utf8_decode(w[i], 0, first);
    if (first_len < w[i].size()) utf8_decode(w[i], first_len, second);

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
