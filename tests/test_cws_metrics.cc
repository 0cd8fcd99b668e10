// CWS scoring (core/eval/segmentation.h) and the BMES helpers (tasks/cws/bmes.h): SIGHAN counts and rates on
// cases counted by hand in the comments (character spans listed, then every count and rate), the error
// cases, the word-list and bakeoff-file readers and writer, BMES round trips and UTF-8 validation; and, when
// the SIGHAN 2005 data is present ($RAW_DATA/sighan2005 or ../shared/data/sighan2005), the real MSR and PKU
// gold files: every line round-trips through tags, gold scores 1 against itself, the published counts.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

#include "bmes.h"
#include "data/text.h"
#include "eval/segmentation.h"
#include "test_util.h"

namespace twin::cws {
namespace {

namespace fs = std::filesystem;
using namespace twin::test;   // the test helpers of test_util.h
using Words = std::vector<std::string>;

Words seg(const std::string& line) { return split_whitespace(line); }   // what read_segmented splits on

void expect_counts(const SegCounts& c, long gold, long test, long correct, long oov_gold, long oov_correct,
                   long iv_gold, long iv_correct) {
  EXPECT_EQ(c.gold_words, gold);
  EXPECT_EQ(c.test_words, test);
  EXPECT_EQ(c.correct, correct);
  EXPECT_EQ(c.oov_gold, oov_gold);
  EXPECT_EQ(c.oov_correct, oov_correct);
  EXPECT_EQ(c.iv_gold, iv_gold);
  EXPECT_EQ(c.iv_correct, iv_correct);
}

std::string write_bytes(const twin::test::TempDir& d, const std::string& name, const std::string& bytes) {
  const std::string p = d.file(name);
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// ---------------------------------------------------------------- SIGHAN counts, by hand

// gold 我 爱 北京 天安门: spans 我[0,1) 爱[1,2) 北京[2,4) 天安门[4,7); test 我爱 北京 天 安门: 我爱[0,2)
// 北京[2,4) 天[4,5) 安门[5,7). Only [2,4) is in both: correct 1. Words 4 and 4: P = 1/4, R = 1/4,
// F = 2 (1/4)(1/4) / (1/2) = 1/4. List {我, 爱, 北京}: 天安门 is the one OOV gold word (missed): OOV rate 1/4,
// OOV recall 0/1 = 0; IV gold 我 爱 北京, of which 北京 found: IV recall 1/3.
TEST(CwsMetrics, HandCountedSentence) {
  const std::unordered_set<std::string> words{"我", "爱", "北京"};
  const SegCounts c = score_sentence(seg("我 爱 北京 天安门"), seg("我爱 北京 天 安门"), words, "s1");
  expect_counts(c, 4, 4, 1, 1, 0, 3, 1);
  EXPECT_DOUBLE_EQ(c.precision(), 0.25);
  EXPECT_DOUBLE_EQ(c.recall(), 0.25);
  EXPECT_DOUBLE_EQ(c.f1(), 0.25);
  EXPECT_DOUBLE_EQ(c.oov_rate(), 0.25);
  EXPECT_DOUBLE_EQ(c.oov_recall(), 0.0);
  EXPECT_DOUBLE_EQ(c.iv_recall(), 1.0 / 3);
  EXPECT_EQ(c.summary(), "P 25.00 R 25.00 F 25.00 OOV-rate 25.00 R-oov 0.00 R-iv 33.33");
  const nlohmann::json j = c.to_json();
  EXPECT_EQ(j["correct"], 1);
  EXPECT_EQ(j["oov_gold"], 1);
  EXPECT_DOUBLE_EQ(j["iv_recall"].get<double>(), 1.0 / 3);
  EXPECT_EQ(j.size(), 13u);
}

// gold 他 来到 了 网易 杭研 大厦: 他[0,1) 来到[1,3) 了[3,4) 网易[4,6) 杭研[6,8) 大厦[8,10) (6 words);
// test 他 来 到了 网易 杭 研 大厦: 他[0,1) 来[1,2) 到了[2,4) 网易[4,6) 杭[6,7) 研[7,8) 大厦[8,10) (7 words).
// Same spans: 他, 网易, 大厦 -> correct 3. P = 3/7, R = 3/6 = 1/2, F = 2 (3/7)(1/2) / (3/7 + 1/2) = 6/13.
// List {他, 来到, 了, 大厦, 杭}: OOV gold 网易 (found) and 杭研 (missed): OOV rate 2/6, OOV recall 1/2;
// IV gold 他 来到 了 大厦, found 他 大厦: IV recall 2/4. (杭 is in the list but is only a test word: test words
// are never classified.)
const char* kGold2 = "他 来到 了 网易 杭研 大厦";
const char* kTest2 = "他 来 到了 网易 杭 研 大厦";
const std::unordered_set<std::string> kWords2{"他", "来到", "了", "大厦", "杭"};

TEST(CwsMetrics, OovFoundAndMissed) {
  const SegCounts c = score_sentence(seg(kGold2), seg(kTest2), kWords2, "s2");
  expect_counts(c, 6, 7, 3, 2, 1, 4, 2);
  EXPECT_DOUBLE_EQ(c.precision(), 3.0 / 7);
  EXPECT_DOUBLE_EQ(c.recall(), 0.5);
  EXPECT_NEAR(c.f1(), 6.0 / 13, 1e-15);
  EXPECT_DOUBLE_EQ(c.oov_rate(), 1.0 / 3);
  EXPECT_DOUBLE_EQ(c.oov_recall(), 0.5);
  EXPECT_DOUBLE_EQ(c.iv_recall(), 0.5);
}

TEST(CwsMetrics, PerfectSegmentationScoresOne) {
  // 5 gold words, all found; 中华人民共和国 is OOV (found): OOV rate 1/5, OOV recall 1, IV recall 4/4.
  const std::unordered_set<std::string> words{"我", "爱", "北京", "。"};
  const Words w = seg("我 爱 北京 中华人民共和国 。");
  const SegCounts c = score_sentence(w, w, words, "p");
  expect_counts(c, 5, 5, 5, 1, 1, 4, 4);
  EXPECT_EQ(c.precision(), 1.0);
  EXPECT_EQ(c.recall(), 1.0);
  EXPECT_EQ(c.f1(), 1.0);
  EXPECT_DOUBLE_EQ(c.oov_rate(), 0.2);
  EXPECT_EQ(c.oov_recall(), 1.0);
  EXPECT_EQ(c.iv_recall(), 1.0);
}

// Alignment is by character span, not by word identity: gold 看 看 看看 = [0,1) [1,2) [2,4); test 看看 看 看
// = [0,2) [2,3) [3,4): no span in common, correct 0 (the perl script's `diff -y` would match 看 看: 2).
TEST(CwsMetrics, SameWordAtAnotherOffsetIsNotCorrect) {
  const SegCounts c = score_sentence(seg("看 看 看看"), seg("看看 看 看"), {"看"}, "r");
  expect_counts(c, 3, 3, 0, 1, 0, 2, 0);   // 看看 is OOV
  EXPECT_EQ(c.f1(), 0.0);
}

// Corpus = the two sentences above, both against kWords2 (so 我 爱 北京 天安门 are all OOV; 北京 is found).
// Sentence 1: gold 4, test 4, correct 1, OOV gold 4 / found 1, IV 0 / 0. Sentence 2: 6, 7, 3, OOV 2 / 1, IV 4 / 2.
// Totals: gold 10, test 11, correct 4, OOV gold 6, OOV found 2, IV gold 4, IV found 2. Micro-averaged:
// P = 4/11, R = 4/10, F = 2 (4/11)(2/5) / (4/11 + 2/5) = (16/55) / (42/55) = 8/21; OOV rate 6/10, OOV recall
// 2/6, IV recall 2/4.
TEST(CwsMetrics, CorpusTotalsAreSumsOfSentences) {
  const std::vector<Words> gold{seg("我 爱 北京 天安门"), seg(kGold2)};
  const std::vector<Words> test{seg("我爱 北京 天 安门"), seg(kTest2)};
  const SegCounts c = score_corpus(gold, test, kWords2);
  SegCounts sum = score_sentence(gold[0], test[0], kWords2, "a");
  sum.add(score_sentence(gold[1], test[1], kWords2, "b"));
  expect_counts(c, 10, 11, 4, 6, 2, 4, 2);
  expect_counts(sum, 10, 11, 4, 6, 2, 4, 2);
  EXPECT_DOUBLE_EQ(c.precision(), 4.0 / 11);
  EXPECT_DOUBLE_EQ(c.recall(), 0.4);
  EXPECT_NEAR(c.f1(), 8.0 / 21, 1e-15);
  EXPECT_DOUBLE_EQ(c.oov_rate(), 0.6);
  EXPECT_DOUBLE_EQ(c.oov_recall(), 1.0 / 3);
  EXPECT_DOUBLE_EQ(c.iv_recall(), 0.5);
  EXPECT_EQ(c.to_json(), sum.to_json());
}

TEST(CwsMetrics, ZeroDenominatorsGiveZeroAndEmptySentencesCountNothing) {
  const SegCounts none;
  EXPECT_EQ(none.precision(), 0.0);
  EXPECT_EQ(none.recall(), 0.0);
  EXPECT_EQ(none.f1(), 0.0);
  EXPECT_EQ(none.oov_rate(), 0.0);
  EXPECT_EQ(none.oov_recall(), 0.0);
  EXPECT_EQ(none.iv_recall(), 0.0);
  expect_counts(score_sentence({}, {}, {}, "empty"), 0, 0, 0, 0, 0, 0, 0);
  expect_counts(score_corpus({{}, {}}, {{}, {}}, {}), 0, 0, 0, 0, 0, 0, 0);
  // No OOV gold words: OOV recall 0 by convention (the perl script prints "--"), IV recall still defined.
  const SegCounts c = score_sentence(seg("我 爱"), seg("我爱"), {"我", "爱"}, "iv");
  expect_counts(c, 2, 1, 0, 0, 0, 2, 0);
  EXPECT_EQ(c.oov_recall(), 0.0);
  EXPECT_EQ(c.f1(), 0.0);   // P = R = 0
}

TEST(CwsMetrics, DifferentCharactersAreAnErrorNamingTheSentence) {
  const std::vector<Words> gold{seg("我 爱 北京"), seg("天安门 广场"), seg("你好")};
  const std::vector<Words> test{seg("我 爱 北京"), seg("天安门 广 场 上"), seg("你好")};
  const std::string e = error_of([&] { score_corpus(gold, test, {}); });
  EXPECT_TRUE(contains(e, "sentence 2:")) << e;
  EXPECT_TRUE(contains(e, "cover different characters")) << e;
  EXPECT_TRUE(contains(e, "gold 5 characters, test 6")) << e;
  EXPECT_TRUE(contains(e, "first differ at character 6")) << e;
  // Same length, other characters; a test side with words where gold has none.
  EXPECT_TRUE(contains(error_of([] { score_sentence(seg("北京"), seg("南京"), {}, "line 7"); }),
                       "line 7: the gold and test segmentations cover different characters"));
  EXPECT_TRUE(contains(error_of([] { score_sentence({}, seg("北京"), {}, "line 8"); }), "line 8:"));
  // Sentence counts.
  const std::string n = error_of([&] { score_corpus(gold, {test[0], test[1]}, {}); });
  EXPECT_TRUE(contains(n, "3 sentences but the test one has 2")) << n;
  // Empty words and bad UTF-8 inside a word.
  EXPECT_TRUE(contains(error_of([] { score_sentence({"北京", ""}, {"北京"}, {}, "w"); }), "gold word 2 is empty"));
  EXPECT_TRUE(contains(error_of([] { score_sentence({"北京"}, {"北\xE4"}, {}, "u"); }), "invalid UTF-8 at byte 3"));
}

// ---------------------------------------------------------------- files

TEST(CwsMetricsIo, WordListReaderTrimsAndRejectsBadLines) {
  twin::test::TempDir d("cws");
  // CRLF, a BOM, surrounding spaces and a full-width space, an empty line, a duplicate.
  const std::string ok = write_bytes(d, "w.utf8", "\xEF\xBB\xBF北京\r\n  天安门 \r\n\r\n\xE3\x80\x80我\t\n北京\n");
  EXPECT_EQ(read_word_list(ok), (std::unordered_set<std::string>{"北京", "天安门", "我"}));
  const std::string inside = write_bytes(d, "bad.utf8", "北京\n天安 门\n");
  const std::string e = error_of([&] { read_word_list(inside); });
  EXPECT_TRUE(contains(e, inside + ":2")) << e;
  EXPECT_TRUE(contains(e, "one word per line")) << e;
  const std::string utf = write_bytes(d, "utf.utf8", "北京\n\x80x\n");
  EXPECT_TRUE(contains(error_of([&] { read_word_list(utf); }), utf + ":2: invalid UTF-8 at byte 0"));
  const std::string empty = write_bytes(d, "empty.utf8", "\n  \r\n");
  EXPECT_TRUE(contains(error_of([&] { read_word_list(empty); }), "no words"));
  EXPECT_TRUE(contains(error_of([&] { read_word_list(d.file("missing.utf8")); }), "missing.utf8"));
}

TEST(CwsMetricsIo, WriteSegmentedUsesTheBakeoffFormatAndReadsBack) {
  twin::test::TempDir d("cws");
  const std::vector<Words> s{seg("我 爱 北京"), {}, seg("。")};
  const std::string p = d.file("out.utf8");
  write_segmented(p, s);
  EXPECT_EQ(read_bytes(p), "我  爱  北京\r\n\r\n。\r\n");
  EXPECT_EQ(read_segmented(p), s);
  for (const auto& e : fs::directory_iterator(d.path)) EXPECT_EQ(e.path().filename(), "out.utf8");   // no temp left
  // Overwrites atomically; bad words are errors and leave the old file as it was.
  write_segmented(p, {seg("你好")});
  EXPECT_EQ(read_bytes(p), "你好\r\n");
  EXPECT_TRUE(contains(error_of([&] { write_segmented(p, {{"你", ""}}); }), "sentence 1 word 2 is empty"));
  EXPECT_TRUE(contains(error_of([&] { write_segmented(p, {{"你 好"}}); }), "holds whitespace"));
  EXPECT_EQ(read_bytes(p), "你好\r\n");
  // The reader: CRLF, full-width spaces, tabs, form feeds and runs of spaces; errors name file:line.
  const std::string in = write_bytes(d, "in.utf8", "扬帆  远东\xE3\x80\x80做\t与\f \r\n\r\n   \r\n中国\n");
  EXPECT_EQ(read_segmented(in), (std::vector<Words>{{"扬帆", "远东", "做", "与"}, {}, {}, {"中国"}}));
  const std::string bad = write_bytes(d, "bad.utf8", "中国\n中\xC0\xAF国\n");
  const std::string e = error_of([&] { read_segmented(bad); });
  EXPECT_TRUE(contains(e, bad + ":2: invalid UTF-8 at byte 3")) << e;
}

// ---------------------------------------------------------------- BMES (bmes.h)

void expect_round_trip(const std::string& line, const std::string& letters) {
  const Words words = seg(line);
  const std::vector<int> tags = words_to_tags(words, "rt");
  std::string got;
  for (int t : tags) got += kTagLetters[t];
  EXPECT_EQ(got, letters) << line;
  std::string text;
  for (const std::string& w : words) text += w;
  const Words chars = utf8_chars(text, "rt");
  ASSERT_EQ(chars.size(), tags.size()) << line;
  EXPECT_EQ(tags_to_words(chars, tags), words) << line;
  std::vector<int> parsed;
  for (char c : letters) parsed.push_back(tag_from_letter(c, "rt"));
  EXPECT_EQ(parsed, tags);
}

TEST(Bmes, SegmentationTagsSegmentationRoundTrip) {
  expect_round_trip("我 爱 北京 天安门", "SSBEBME");
  // Punctuation and quotes are one-character words; a four-character word is B M M E.
  expect_round_trip("他 说 ： “ 中华人民 万岁 ！ ”", "SSSSBMMEBESS");
  // Latin letters, digits and full-width forms are characters like any other.
  expect_round_trip("ATR 模型 于 2018年 发表 ，  Ｆ１ 为 ９７．５ 。", "BMEBESBMMMEBESBESBMMES");
  // Full-width spaces, tabs, runs of spaces and CRLF only separate.
  expect_round_trip("\xE3\x80\x80北京\xE3\x80\x80\xE3\x80\x80欢迎\t\t你  。\r", "BEBESS");
  // Other Unicode spaces (here U+00A0) are characters, as data/text.h split_whitespace keeps them.
  expect_round_trip("北\xC2\xA0京", "BME");
  expect_round_trip("一", "S");
}

TEST(Bmes, EmptyAndBlankLinesHaveNoWords) {
  EXPECT_TRUE(seg("").empty());
  EXPECT_TRUE(seg("\r").empty());
  EXPECT_TRUE(seg("     ").empty());
  EXPECT_TRUE(seg(" \t\xE3\x80\x80  \r").empty());
  EXPECT_TRUE(words_to_tags({}, "e").empty());
  EXPECT_TRUE(tags_to_words({}, {}).empty());
}

TEST(Bmes, MalformedTagSequencesStillSegment) {
  // "a word starts at B or S, or after E or S; it ends at E or S, or before B or S":
  // M M S B -> [a b] [c] [d];  B B E -> [a] [b c];  E M -> [a] [b]
  const Words c4{"a", "b", "c", "d"};
  EXPECT_EQ(tags_to_words(c4, {kM, kM, kS, kB}), (Words{"ab", "c", "d"}));
  EXPECT_EQ(tags_to_words({"a", "b", "c"}, {kB, kB, kE}), (Words{"a", "bc"}));
  EXPECT_EQ(tags_to_words({"a", "b"}, {kE, kM}), (Words{"a", "b"}));
  EXPECT_TRUE(contains(error_of([] { tags_to_words({"a"}, {kS, kS}); }), "1 characters but 2 tags"));
  EXPECT_TRUE(contains(error_of([] { tag_from_letter('X', "f.bmes:3"); }), "f.bmes:3: tag 'X'"));
  EXPECT_TRUE(contains(error_of([] { words_to_tags({"ab", ""}, "w"); }), "w: empty word"));
}

TEST(Bmes, InvalidUtf8NamesTheByteOffset) {
  // The offset is that of the first byte of the bad sequence.
  auto at = [](const std::string& s, const std::string& where) { return error_of([&] { utf8_chars(s, where); }); };
  // A lone continuation byte at byte 2.
  std::string e = at("ab\x80" "c", "f.seg:4");
  EXPECT_TRUE(contains(e, "f.seg:4: invalid UTF-8 at byte 2")) << e;
  // A 3-byte character cut off by the end of the line: 北 is bytes 0-2, then E4 BA at 3; or by an ASCII byte.
  e = at("\xE5\x8C\x97\xE4\xBA", "t");
  EXPECT_TRUE(contains(e, "invalid UTF-8 at byte 3")) << e;
  e = at("\xE5\x8C\x97\xE4\xBA" "x", "t");
  EXPECT_TRUE(contains(e, "invalid UTF-8 at byte 3")) << e;
  // Overlong: C0 AF is '/' in two bytes (at byte 1); E0 80 80 is U+0000 in three.
  e = at("a\xC0\xAF", "t");
  EXPECT_TRUE(contains(e, "invalid UTF-8 at byte 1")) << e;
  EXPECT_TRUE(contains(at("\xE0\x80\x80", "t"), "invalid UTF-8 at byte 0"));
  // A surrogate (U+D800), a code point above U+10FFFF, a byte that cannot start a character.
  EXPECT_TRUE(contains(at("\xE4\xB8\xAD\xED\xA0\x80", "t"), "invalid UTF-8 at byte 3"));
  EXPECT_TRUE(contains(at("\xF4\x90\x80\x80", "t"), "invalid UTF-8 at byte 0"));
  EXPECT_TRUE(contains(at("\xFF", "t"), "invalid UTF-8 at byte 0"));
  // Through the segmented-file reader (its line reader's check) and words_to_tags, with the file and line.
  twin::test::TempDir d("cws");
  const std::string msr = write_bytes(d, "msr.utf8", "北京\n北京  \x80\n");
  e = error_of([&] { read_segmented(msr); });
  EXPECT_TRUE(contains(e, msr + ":2: invalid UTF-8 at byte 8 of the line")) << e;
  e = error_of([] { words_to_tags({"北京", "\xE4\xB8"}, "w.seg:3"); });
  EXPECT_TRUE(contains(e, "w.seg:3: invalid UTF-8 at byte 0")) << e;
  EXPECT_EQ(at("\xF0\x9F\x98\x80\xE4\xB8\xAD", "ok"), kNoErrorThrown);   // a 4-byte character and 中
}

// ---------------------------------------------------------------- the real SIGHAN 2005 gold files

fs::path sighan_dir() {
  const char* env = std::getenv("RAW_DATA");
  return fs::path(env ? env : std::string(TW_SOURCE_DIR) + "/../shared/data") / "sighan2005";
}

// Published counts (SIGHAN 2005; sighan2005/SOURCE.md): sentences, words, characters of the gold test files.
// The OOV rates against the official training word lists are the bakeoff's: MSR 0.026, PKU 0.058.
TEST(CwsSighan, GoldFilesRoundTripAndScoreOneAgainstThemselves) {
  struct Case {
    const char* corpus;
    size_t lines, sentences;
    long words, chars;
    double oov_rate;
  };
  const fs::path root = sighan_dir();
  if (!fs::exists(root / "gold" / "msr_test_gold.utf8"))
    GTEST_SKIP() << "no SIGHAN 2005 gold files in " << (root / "gold").string() << " (set RAW_DATA to run this)";
  for (const Case& c : {Case{"msr", 3985, 3985, 106873, 184355, 0.026},
                        Case{"pku", 1945, 1944, 104372, 172733, 0.058}}) {
    const std::string corpus = c.corpus;
    const std::string gold_path = (root / "gold" / (corpus + "_test_gold.utf8")).string();
    const std::vector<Words> gold = read_segmented(gold_path);
    ASSERT_EQ(gold.size(), c.lines) << corpus;
    size_t sentences = 0;
    long chars = 0;
    for (size_t i = 0; i < gold.size(); ++i) {
      const std::string where = gold_path + ":" + std::to_string(i + 1);
      const std::vector<int> tags = words_to_tags(gold[i], where);
      std::string text;
      for (const std::string& w : gold[i]) text += w;
      const Words ch = utf8_chars(text, where);
      ASSERT_EQ(ch.size(), tags.size()) << where;
      ASSERT_EQ(tags_to_words(ch, tags), gold[i]) << where;
      sentences += !gold[i].empty();
      chars += static_cast<long>(ch.size());
    }
    EXPECT_EQ(sentences, c.sentences) << corpus;
    EXPECT_EQ(chars, c.chars) << corpus;
    const std::unordered_set<std::string> words =
        read_word_list((root / "gold" / (corpus + "_training_words.utf8")).string());
    const SegCounts s = score_corpus(gold, gold, words);
    EXPECT_EQ(s.gold_words, c.words) << corpus;
    EXPECT_EQ(s.correct, c.words) << corpus;
    EXPECT_EQ(s.precision(), 1.0);
    EXPECT_EQ(s.recall(), 1.0);
    EXPECT_EQ(s.f1(), 1.0);
    EXPECT_EQ(s.iv_recall(), 1.0);
    EXPECT_EQ(s.oov_recall(), 1.0);
    EXPECT_NEAR(s.oov_rate(), c.oov_rate, 0.0005) << corpus;
    std::printf("[ SIGHAN %s ] %zu sentences, %ld words, %ld OOV (rate %.4f) against %zu training words\n", c.corpus,
                sentences, s.gold_words, s.oov_gold, s.oov_rate(), words.size());
    // Written back in the bakeoff format and read again: the same sentences.
    twin::test::TempDir d("cws");
    write_segmented(d.file("gold.utf8"), gold);
    EXPECT_EQ(read_segmented(d.file("gold.utf8")), gold) << corpus;
  }
}

}  // namespace
}  // namespace twin::cws
