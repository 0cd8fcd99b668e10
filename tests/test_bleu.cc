// MT metrics (core/eval/bleu.h, eval/tokenize_13a.h, data/unicode_text.h) and NMT's detokenizer
// (tasks/nmt/score/text_tok.h): BLEU and chrF on cases whose statistics are counted by hand in the comments (n-grams
// listed, then the closed form of the score), sacreBLEU's 13a tokenizer on tricky strings, the Moses-style
// detokenizer on real Multi30k lines, and the detokenizer's agreement with the raw Multi30k val references
// (skipped when the data is absent).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "data/text.h"
#include "data/unicode_text.h"
#include "eval/bleu.h"
#include "eval/tokenize_13a.h"
#include "score/text_tok.h"
#include "test_util.h"

namespace twin::nmt {
namespace {

namespace fs = std::filesystem;
using namespace twin::test;   // the test helpers of test_util.h

BleuOptions tok_none(const std::string& smooth = "none") {
  BleuOptions o;
  o.smooth = bleu_smooth_of(smooth);
  return o;
}

void expect_stats(const BleuStats& s, std::array<double, 4> matches, std::array<double, 4> totals, double hyp_len,
                  double ref_len) {
  EXPECT_EQ(s.matches, matches);
  EXPECT_EQ(s.totals, totals);
  EXPECT_EQ(s.hyp_len, hyp_len);
  EXPECT_EQ(s.ref_len, ref_len);
}

// ---------------------------------------------------------------- BLEU

TEST(Bleu, PerfectMatchIs100) {
  // 6 tokens: 6 unigrams, 5 bigrams, 4 trigrams, 3 4-grams, all matched; BP 1.
  const BleuScore b = corpus_bleu({"the cat sat on the mat"}, {{"the cat sat on the mat"}}, tok_none());
  EXPECT_DOUBLE_EQ(b.score, 100.0);
  EXPECT_EQ(b.str(), "BLEU = 100.00 100.0/100.0/100.0/100.0 (BP = 1.000 ratio = 1.000 hyp_len = 6 ref_len = 6)");
  expect_stats(sentence_stats("the cat sat on the mat", {"the cat sat on the mat"}, tok_none()), {6, 5, 4, 3},
               {6, 5, 4, 3}, 6, 6);
}

TEST(Bleu, BrevityPenaltyWhenTheHypothesisIsShorter) {
  // hyp "the cat sat on the" (5) vs ref "the cat sat on the mat" (6): the x2 (ref has 2), cat, sat, on -> 5/5;
  // the-cat cat-sat sat-on on-the 4/4; 3/3; 2/2. Precisions 1, BP = exp(1 - 6/5) = exp(-0.2) = 0.818731.
  const BleuScore b = corpus_bleu({"the cat sat on the"}, {{"the cat sat on the mat"}}, tok_none());
  EXPECT_NEAR(b.bp, std::exp(-0.2), 1e-12);
  EXPECT_NEAR(b.score, 100 * std::exp(-0.2), 1e-9);   // 81.8731
  EXPECT_NEAR(b.ratio, 5.0 / 6.0, 1e-12);
  EXPECT_EQ(b.str(), "BLEU = 81.87 100.0/100.0/100.0/100.0 (BP = 0.819 ratio = 0.833 hyp_len = 5 ref_len = 6)");
}

// hyp "a b c x d e f" vs ref "a b c y d e f": unigrams 6/7 (x misses); bigrams ab bc cx xd de ef -> ab bc de ef
// 4/6; trigrams abc bcx cxd xde def -> abc def 2/5; 4-grams abcx bcxd cxde xdef -> 0/4. Lengths 7 and 7.
const char* kHyp = "a b c x d e f";
const char* kRef = "a b c y d e f";

TEST(Bleu, NoFourGramMatchIsZeroWithoutSmoothing) {
  expect_stats(sentence_stats(kHyp, {kRef}, tok_none()), {6, 4, 2, 0}, {7, 6, 5, 4}, 7, 7);
  const BleuScore b = corpus_bleu({kHyp}, {{kRef}}, tok_none());
  EXPECT_EQ(b.score, 0.0);
  EXPECT_NEAR(b.precisions[0], 600.0 / 7, 1e-9);   // precisions are still reported
  EXPECT_NEAR(b.precisions[1], 400.0 / 6, 1e-9);
  EXPECT_NEAR(b.precisions[2], 40.0, 1e-9);
  EXPECT_EQ(b.precisions[3], 0.0);
}

TEST(Bleu, SmoothingMethodsAsSacrebleuDefinesThem) {
  // exp: the first zero order gets 1 / (2 * total) = 1/8. Product 6/7 * 4/6 * 2/5 * 1/8 = 1/35, so
  // BLEU = 100 * 35^(-1/4) = 41.113.
  const BleuScore e = corpus_bleu({kHyp}, {{kRef}}, tok_none("exp"));
  EXPECT_NEAR(e.precisions[3], 12.5, 1e-12);
  EXPECT_NEAR(e.score, 100 * std::pow(1.0 / 35, 0.25), 1e-9);
  EXPECT_TRUE(contains(e.signature, "|smooth:exp|"));
  // floor 0.1: p4 = 0.1 / 4 = 0.025; product 8/35 * 0.025 = 1/175; BLEU = 100 * 175^(-1/4) = 27.494.
  const BleuScore f = corpus_bleu({kHyp}, {{kRef}}, tok_none("floor"));
  EXPECT_NEAR(f.score, 100 * std::pow(1.0 / 175, 0.25), 1e-9);
  EXPECT_TRUE(contains(f.signature, "|smooth:floor[0.10]|"));
  // add-k 1 (orders 2-4 only): 6/7, 5/7, 3/6, 1/5; product 30/490 = 3/49; BLEU = 100 * (3/49)^(1/4) = 49.743.
  const BleuScore a = corpus_bleu({kHyp}, {{kRef}}, tok_none("add-k"));
  EXPECT_NEAR(a.score, 100 * std::pow(3.0 / 49, 0.25), 1e-9);
  EXPECT_TRUE(contains(a.signature, "|smooth:add-k[1.00]|"));
}

TEST(Bleu, ExpSmoothingHalvesAgainForEachFurtherZeroOrder) {
  // hyp "a b c d" vs ref "a x c y": unigrams a c 2/4, then 0/3, 0/2, 0/1. exp: p2 = 1/(2*3), p3 = 1/(4*2),
  // p4 = 1/(8*1). Product 1/2 * 1/6 * 1/8 * 1/8 = 1/768; BLEU = 100 * 768^(-1/4) = 18.995.
  const BleuScore b = corpus_bleu({"a b c d"}, {{"a x c y"}}, tok_none("exp"));
  EXPECT_NEAR(b.score, 100 * std::pow(1.0 / 768, 0.25), 1e-9);
}

TEST(Bleu, TwoReferencesClipByTheMaxCountAndTakeTheClosestLength) {
  // hyp "a b c d e"; ref1 "a b c x e" (5), ref2 "x b c d e y" (6). Unigrams all in some ref: 5/5. Bigrams ab
  // (ref1) bc cd de (ref2): 4/4. Trigrams abc (ref1) bcd cde (ref2): 3/3. 4-grams abcd (no) bcde (ref2): 1/2.
  // Closest length 5. BLEU = 100 * (1/2)^(1/4) = 84.090.
  const BleuScore b = corpus_bleu({"a b c d e"}, {{"a b c x e"}, {"x b c d e y"}}, tok_none());
  EXPECT_NEAR(b.score, 100 * std::pow(0.5, 0.25), 1e-9);
  EXPECT_TRUE(contains(b.signature, "nrefs:2|"));
  // ref1 alone has no 4-gram match (abcx, bcxe): 0.
  EXPECT_EQ(corpus_bleu({"a b c d e"}, {{"a b c x e"}}, tok_none()).score, 0.0);

  // Clipping: "the" x4 in hyp, at most 2 in one ref ("the the mat") -> 2/4; "the the" x3, at most 1 -> 1/3;
  // "the the the" 0/2; 0/1. Ref lengths 2 and 3, hyp 4: closest 3.
  expect_stats(sentence_stats("the the the the", {"the cat", "the the mat"}, tok_none()), {2, 1, 0, 0},
               {4, 3, 2, 1}, 4, 3);
  // Tie (lengths 3 and 5 are both 1 away from 4): the shorter, whichever order the refs come in.
  EXPECT_EQ(sentence_stats("a b c d", {"a b c", "a b c d e"}, tok_none()).ref_len, 3);
  EXPECT_EQ(sentence_stats("a b c d", {"a b c d e", "a b c"}, tok_none()).ref_len, 3);
}

TEST(Bleu, CorpusStatisticsAreSumsOfSentenceStatistics) {
  // s1 "a b c d" = ref: {4,3,2,1}/{4,3,2,1}. s2 "a b c d e" vs "a b x d e": a b d e 4/5; ab de 2/4; 0/3; 0/2.
  // Sum: matches {8,5,2,1}, totals {9,7,5,3}, lengths 9/9. BLEU = 100 * (8/9 * 5/7 * 2/5 * 1/3)^(1/4)
  // = 100 * (16/189)^(1/4) = 53.941, although s2 alone scores 0: corpus BLEU is not a mean of sentence BLEUs.
  const std::vector<std::string> hyps = {"a b c d", "a b c d e"}, refs = {"a b c d", "a b x d e"};
  BleuStats sum = sentence_stats(hyps[0], {refs[0]}, tok_none());
  sum += sentence_stats(hyps[1], {refs[1]}, tok_none());
  expect_stats(sum, {8, 5, 2, 1}, {9, 7, 5, 3}, 9, 9);
  const BleuScore corpus = corpus_bleu(hyps, {refs}, tok_none());
  EXPECT_NEAR(corpus.score, 100 * std::pow(16.0 / 189, 0.25), 1e-9);
  EXPECT_EQ(bleu_from_stats(sum, tok_none()).str(), corpus.str());
  EXPECT_EQ(corpus_bleu({hyps[1]}, {{refs[1]}}, tok_none()).score, 0.0);
}

TEST(Bleu, EmptyHypothesisCountsAsLengthZero) {
  // s1 perfect {4,3,2,1}, s2 "" vs "x y": no n-grams, hyp 0, ref 2. Lengths 4 vs 6: BP = exp(1 - 6/4) = exp(-0.5).
  const BleuScore b = corpus_bleu({"a b c d", ""}, {{"a b c d", "x y"}}, tok_none());
  EXPECT_NEAR(b.score, 100 * std::exp(-0.5), 1e-9);   // 60.653
  EXPECT_EQ(b.hyp_len, 4);
  EXPECT_EQ(b.ref_len, 6);
}

TEST(Bleu, LowercaseFoldsUnicodeCapitals) {
  // Case-sensitive: no token matches (Über/über, Die/die, ...): 0. Lowercased: identical, 100.
  const std::vector<std::string> hyp = {"Über Die Straße Gehen"};
  const std::vector<std::vector<std::string>> ref = {{"über die straße gehen"}};
  BleuOptions o = tok_none();
  EXPECT_EQ(corpus_bleu(hyp, ref, o).score, 0.0);
  EXPECT_TRUE(contains(corpus_bleu(hyp, ref, o).signature, "|case:mixed|"));
  o.lowercase = true;
  EXPECT_DOUBLE_EQ(corpus_bleu(hyp, ref, o).score, 100.0);
  EXPECT_TRUE(contains(corpus_bleu(hyp, ref, o).signature, "|case:lc|"));
  // Python's str.lower() on these: Ä Ö Ü -> ä ö ü, ẞ -> ß, Ÿ -> ÿ, İ -> i + U+0307, Ŋ -> ŋ, Ж Ё -> ж ё; × stays.
  EXPECT_EQ(utf8_lower("ÄÖÜ ẞ Ÿ İ Ŋ ЖЁ × ABC"), "äöü ß ÿ i\xCC\x87 ŋ жё × abc");
}

// The lenient helpers decode with the strict readers' table (data/text.h utf8_sequence_length): one decoder.
// A byte that starts no valid sequence is data, copied through alone, including the forms a looser decoder
// would read as a code point: an overlong NUL (E0 80 80) or U+00A0 (E0 82 A0), a surrogate (ED A0 80), a code
// point above U+10FFFF (F4 90 80 80) and a lead byte F5.
TEST(UnicodeText, OneDecoderWithTheStrictTable) {
  const std::vector<std::string> valid = {"a", "\xC2\xA0", "中", "\xF0\x9F\x98\x80", "\xF4\x8F\xBF\xBF"};
  const std::vector<char32_t> cps = {U'a', 0xA0, 0x4E2D, 0x1F600, 0x10FFFF};
  for (size_t k = 0; k < valid.size(); ++k) {
    char32_t cp = 0;
    EXPECT_EQ(utf8_decode(valid[k], 0, cp), valid[k].size()) << k;
    EXPECT_EQ(cp, cps[k]) << k;
  }
  for (const std::string bad : {"\xE0\x80\x80", "\xE0\x82\xA0", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xF5\x80\x80\x80",
                                "\xE4\xB8", "\x80"}) {
    SCOPED_TRACE(::testing::PrintToString(bad));
    EXPECT_EQ(utf8_sequence_length(bad, 0), 0u);
    char32_t cp = 0;
    EXPECT_EQ(utf8_decode(bad, 0, cp), 1u);
    EXPECT_EQ(cp, 0xFFFDu);
    EXPECT_EQ(utf8_lower("A" + bad + "B"), "a" + bad + "b");   // the bytes unchanged
    EXPECT_EQ(split_unicode_whitespace("x" + bad + "y").size(), 1u);   // not a space
  }
  EXPECT_EQ(split_unicode_whitespace("x\xC2\xA0y").size(), 2u);   // the real U+00A0 is one
}

TEST(UnicodeText, ReplaceInOrderChainsStrReplace) {
  std::string s = "&amp;lt; aaa";
  replace_in_order(s, {{"&lt;", "<"}, {"&amp;", "&"}, {"aa", "b"}, {"b", "c"}});
  EXPECT_EQ(s, "&lt; ca");   // each on the previous result: "&amp;" after "&lt;" leaves "&lt;"; "aa" left to right
  s = "&amp;lt;";
  replace_in_order(s, {{"&amp;", "&"}, {"&lt;", "<"}});
  EXPECT_EQ(s, "<");
}

TEST(Bleu, TheTwoFlavoursAreLabelledApart) {
  // 13a splits both sides into "Hello , world !" -> identical, 100. Whitespace only: hyp "Hello," "world!" (2)
  // vs 4 reference tokens: 0/2, 0/1 matches -> 0.
  BleuOptions sacre;
  sacre.tokenize = BleuTokenize::k13a;
  const BleuScore s = corpus_bleu({"Hello, world!"}, {{"Hello , world !"}}, sacre);
  const BleuScore t = corpus_bleu({"Hello, world!"}, {{"Hello , world !"}}, tok_none());
  EXPECT_DOUBLE_EQ(s.score, 100.0);
  EXPECT_EQ(t.score, 0.0);
  expect_stats(sentence_stats("Hello, world!", {"Hello , world !"}, tok_none()), {0, 0, 0, 0}, {2, 1, 0, 0}, 2, 4);
  EXPECT_EQ(s.label, "sacreBLEU");
  EXPECT_EQ(t.label, "BLEU (tokenised, multi-bleu)");
  EXPECT_EQ(s.signature, "nrefs:1|case:mixed|eff:no|tok:13a|smooth:none|version:twinrnn");
  EXPECT_EQ(t.signature, "nrefs:1|case:mixed|eff:no|tok:none|smooth:none|version:twinrnn");
  EXPECT_EQ(s.summary(), "sacreBLEU: " + s.str() + " [" + s.signature + "]");
}

TEST(Bleu, EmptyReferencesAreSkippedAsSacrebleuDoes) {
  // Sentence 1 has one non-empty reference, sentence 2 two: "nrefs:var". Both hypotheses match exactly.
  const BleuScore b = corpus_bleu({"a b c d", "a b c d"}, {{"a b c d", "a b c d"}, {"", "x"}}, tok_none());
  EXPECT_DOUBLE_EQ(b.score, 100.0);
  EXPECT_TRUE(contains(b.signature, "nrefs:var|"));
  const std::string e = error_of([] { corpus_bleu({"a", "b"}, {{"a", ""}}, tok_none()); });
  EXPECT_TRUE(contains(e, "line 2 has only empty references")) << e;
}

TEST(Bleu, BadInputIsAnErrorNamingTheProblem) {
  const std::string count = error_of([] { corpus_bleu({"a", "b"}, {{"a", "b", "c"}}, tok_none()); });
  EXPECT_TRUE(contains(count, "2 hypotheses")) << count;
  EXPECT_TRUE(contains(count, "3 sentences")) << count;
  const std::string tok = error_of([] { bleu_tokenize_of("intl"); });
  EXPECT_TRUE(contains(tok, "'intl'") && contains(tok, "allowed: none, 13a")) << tok;
  const std::string smooth = error_of([] { bleu_smooth_of("laplace"); });
  EXPECT_TRUE(contains(smooth, "allowed: none, exp, floor, add-k")) << smooth;
  EXPECT_TRUE(contains(error_of([] { corpus_bleu({}, {{}}, tok_none()); }), "empty corpus"));
  EXPECT_TRUE(contains(error_of([] { corpus_bleu({"a"}, {}, tok_none()); }), "no reference sets"));
}

// ---------------------------------------------------------------- chrF

ChrfScore chrf1(const std::string& hyp, const std::string& ref, ChrfOptions o = {}) {
  return corpus_chrf({hyp}, {{ref}}, o);
}

TEST(Chrf, PerfectIs100AndDisjointIs0) {
  EXPECT_DOUBLE_EQ(chrf1("the cat", "the cat").score, 100.0);
  EXPECT_EQ(chrf1("abc", "xyz").score, 0.0);
  EXPECT_DOUBLE_EQ(chrf1("a b", "ab").score, 100.0);   // whitespace is removed first
}

TEST(Chrf, PartialMatchAveragesOverTheEffectiveOrders) {
  // hyp "ab", ref "abc". n=1: P 2/2, R 2/3. n=2: "ab" vs {ab, bc}: P 1, R 1/2. n>=3: the hypothesis has none,
  // so those orders do not count. avg P = 1, avg R = (2/3 + 1/2)/2 = 7/12;
  // chrF2 = 5 P R / (4 P + R) = (35/12) / (55/12) = 7/11 = 63.636.
  const ChrfScore c = chrf1("ab", "abc");
  EXPECT_NEAR(c.score, 700.0 / 11, 1e-9);
  EXPECT_EQ(c.str(), "chrF2 = 63.64");
  EXPECT_EQ(c.signature, "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:twinrnn");
}

TEST(Chrf, CountsCodePointsAndCanKeepWhitespace) {
  // "ä" vs "äb" in code points: n=1 P 1, R 1/2; n=2 only in the reference. F = 5 * 1/2 / (4 + 1/2) = 5/9.
  EXPECT_NEAR(chrf1("ä", "äb").score, 500.0 / 9, 1e-9);
  // whitespace kept: hyp "a b" = {a, ' ', b}, ref {a, b}: n=1 P 2/3, R 1; n=2 {"a ", " b"} vs {ab}: P 0, R 0;
  // n=3 "a b" has no reference trigram. avg P 1/3, avg R 1/2: F = 5/6 / (4/3 + 1/2) = 5/11.
  ChrfOptions ws;
  ws.whitespace = true;
  EXPECT_NEAR(chrf1("a b", "ab", ws).score, 500.0 / 11, 1e-9);
  ChrfOptions lc;
  lc.lowercase = true;
  EXPECT_EQ(chrf1("AB", "ab").score, 0.0);
  EXPECT_DOUBLE_EQ(chrf1("AB", "ab", lc).score, 100.0);
}

TEST(Chrf, CorpusStatisticsAndTheBestOfSeveralReferences) {
  // ("ab", "abc") + ("xy", "xy"): n=1 hyp 4, ref 5, match 4; n=2 hyp 2, ref 3, match 2; n=3 ref only.
  // avg P 1, avg R (4/5 + 2/3)/2 = 11/15; F = 5 * 11/15 / (4 + 11/15) = 55/71 = 77.465 (the mean of the
  // sentence scores would be (63.64 + 100)/2 = 81.82).
  EXPECT_NEAR(corpus_chrf({"ab", "xy"}, {{"abc", "xy"}}).score, 5500.0 / 71, 1e-9);
  // Two references: the one with the better sentence chrF ("abc", 7/11) is used.
  const ChrfScore m = corpus_chrf({"ab"}, {{"xyz"}, {"abc"}});
  EXPECT_NEAR(m.score, 700.0 / 11, 1e-9);
  EXPECT_TRUE(contains(m.signature, "nrefs:2|"));
  const std::string e = error_of([] { corpus_chrf({"a"}, {{"a", "b"}}); });
  EXPECT_TRUE(contains(e, "1 hypotheses but reference set 0 has 2")) << e;
}

// ---------------------------------------------------------------- 13a tokenizer

TEST(Tok13a, PunctuationIsSplitOffExceptInsideNumbers) {
  EXPECT_EQ(tokenize_13a("Hello, world!"), "Hello , world !");
  EXPECT_EQ(tokenize_13a("It costs $3.50 (or 1,000 yen)."), "It costs $ 3.50 ( or 1,000 yen ) .");
  // '.'/',' stays only between digits: "x.5" splits, "5." splits, "1,000,000." keeps its commas.
  EXPECT_EQ(tokenize_13a("3.5 x.5 5. 1,000,000."), "3.5 x . 5 5 . 1,000,000 .");
  EXPECT_EQ(tokenize_13a("e.g. U.S.A."), "e . g . U . S . A .");
  // '-' splits only after a digit; apostrophes never split.
  EXPECT_EQ(tokenize_13a("a 5-year-old, 10-20 km it's"), "a 5 - year-old , 10 - 20 km it's");
  EXPECT_EQ(tokenize_13a("[a]{b}\\c|d~e^f_g`h@i#j"), "[ a ] { b } \\ c | d ~ e ^ f _ g ` h @ i # j");
  EXPECT_EQ(tokenize_13a("Straße, 2,5 km."), "Straße , 2,5 km .");   // multi-byte letter before ','
}

TEST(Tok13a, EntitiesSkippedMarkersAndWhitespace) {
  // &quot; &amp; &lt; &gt; are unescaped (in that order), &apos; is not.
  EXPECT_EQ(tokenize_13a("&quot;Hi&quot; &amp; &lt;b&gt; &apos;x"), "\" Hi \" & < b > & apos ; x");
  EXPECT_EQ(tokenize_13a("&amp;quot;"), "& quot ;");   // &quot; is replaced before &amp;, so this stays literal
  EXPECT_EQ(tokenize_13a("<skipped>self-\nmade\nline"), "selfmade line");
  EXPECT_EQ(tokenize_13a("  a\xC2\xA0" "b\tc  "), "a b c");   // U+00A0 is whitespace to Python's split()
  EXPECT_EQ(tokenize_13a(""), "");
}

// ---------------------------------------------------------------- detokenizer

TEST(Detok, EnglishLinesFromMulti30k) {
  // tok/val.lc.norm.tok.en lines 3, 76, 422, 812, 912 and the lowercased raw/val.en.gz lines.
  EXPECT_EQ(detokenize("a boy wearing headphones sits on a woman &apos;s shoulders .", "en"),
            "a boy wearing headphones sits on a woman's shoulders.");
  EXPECT_EQ(detokenize("two people are holding a large upside-down earth globe , about 4 &apos; in diameter , and a "
                       "child appears to be jumping over antarctica .", "en"),
            "two people are holding a large upside-down earth globe, about 4' in diameter, and a child appears to be "
            "jumping over antarctica.");
  EXPECT_EQ(detokenize("three older women in a living room , decorated for christmas , a &quot; vaio &quot; notebook "
                       "is the center of attention .", "en"),
            "three older women in a living room, decorated for christmas, a \"vaio\" notebook is the center of "
            "attention.");
  EXPECT_EQ(detokenize("an older man is sitting outside on a bench in front a large banner that says , &quot; memoria "
                       "justicia sin olvido . &quot;", "en"),
            "an older man is sitting outside on a bench in front a large banner that says, \"memoria justicia sin "
            "olvido.\"");
  EXPECT_EQ(detokenize("a man with a disability who doesn &apos;t have legs", "en"),
            "a man with a disability who doesn't have legs");
}

TEST(Detok, GermanLinesFromMulti30k) {
  // val.de line 376; train.de lines 20022 (quotes), 10222 (possessive after s), 19987 ("s." token).
  EXPECT_EQ(detokenize("eine frau , die eine einkaufstasche von trader joe &apos; s trägt , ist in der u-bahn "
                       "eingeschlafen .", "de"),
            "eine frau, die eine einkaufstasche von trader joe's trägt, ist in der u-bahn eingeschlafen.");
  EXPECT_EQ(detokenize("die menschen versammeln sich außerhalb eines gebäudes , in dem &apos; love story &apos; "
                       "aufgeführt wird .", "de"),
            "die menschen versammeln sich außerhalb eines gebäudes, in dem 'love story' aufgeführt wird.");
  EXPECT_EQ(detokenize("ein baby drückt mickey maus &apos; nase .", "de"), "ein baby drückt mickey maus' nase.");
  EXPECT_EQ(detokenize("diese zwei frauen haben spaß im giorgio &apos; s.", "de"),
            "diese zwei frauen haben spaß im giorgio's.");
}

TEST(Detok, EscapesBracketsCurrencyAndQuotes) {
  EXPECT_EQ(moses_unescape("&amp;lt; &lt; &#124; &#91;&#93; &apos;&quot;"), "&lt; < | [] '\"");
  EXPECT_EQ(detokenize("a &amp; b &#124; c &lt;tag&gt; &#91; x &#93;", "en"), "a & b | c <tag> [x]");
  EXPECT_EQ(detokenize("( hello ) costs $ 5 , 50 % off ! really ?", "en"), "(hello) costs $5, 50% off! really?");
  EXPECT_EQ(detokenize("upside @-@ down", "en"), "upside-down");
  EXPECT_EQ(detokenize("he said &apos; hi &apos; to the jones &apos; dog .", "en"), "he said 'hi' to the jones' dog.");
  EXPECT_EQ(detokenize("&quot; a &quot; and &quot; b &quot;", "en"), "\"a\" and \"b\"");
  EXPECT_EQ(detokenize("they do n&apos;t", "en"), "they don't");   // Penn-style split
  EXPECT_EQ(detokenize("  a   .  ", "en"), "a.");
  EXPECT_EQ(detokenize("", "de"), "");
}

// Multi30k val: detokenising the tok files should give back the lowercased raw references. Measured when
// written: en 1013/1014 lines identical, sacreBLEU 100.00; de 1010/1014, 99.85 (the rest: „“ quotes that the
// tok files have as ", "now..." for "now ...", and one double space in the raw file). chrF2 100.00 / 99.97.
TEST(Detok, Multi30kValRoundTripsToTheRawReferences) {
  const char* env = std::getenv("RAW_DATA");
  const fs::path root = fs::path(env ? env : std::string(TW_SOURCE_DIR) + "/../shared/data") / "multi30k";
  if (!fs::exists(root / "tok" / "val.lc.norm.tok.en"))
    GTEST_SKIP() << "no Multi30k at " << root << " (set RAW_DATA to run this)";
  struct Case {
    const char* lang;
    int min_identical;
    double min_bleu;
  };
  for (const Case& c : {Case{"en", 1013, 99.99}, Case{"de", 1010, 99.8}}) {
    const std::string lang = c.lang;
    const std::vector<std::string> tok = read_lines((root / "tok" / ("val.lc.norm.tok." + lang)).string());
    const std::vector<std::string> raw = read_lines((root / "raw" / ("val." + lang + ".gz")).string());
    ASSERT_EQ(tok.size(), 1014u);
    ASSERT_EQ(raw.size(), 1014u);
    std::vector<std::string> detok;
    int identical = 0;
    for (size_t i = 0; i < tok.size(); ++i) {
      detok.push_back(detokenize(tok[i], c.lang));
      identical += detok.back() == utf8_lower(raw[i]);
    }
    BleuOptions o;
    o.tokenize = BleuTokenize::k13a;
    o.lowercase = true;
    const BleuScore b = corpus_bleu(detok, {raw}, o);
    std::printf("[ Multi30k val %s ] %d/1014 lines identical; %s\n", c.lang, identical, b.summary().c_str());
    EXPECT_GE(identical, c.min_identical) << c.lang;
    EXPECT_GE(b.score, c.min_bleu) << c.lang;
  }
}

}  // namespace
}  // namespace twin::nmt
