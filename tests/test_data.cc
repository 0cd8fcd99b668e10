#include <gtest/gtest.h>

#include <iostream>
#include <sstream>
#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <numeric>

#include "base/check.h"
#include "data/batch.h"
#include "data/text.h"
#include "data/vocab.h"
#include "test_util.h"

namespace twin {
namespace {

using test::TempDir;

// bytes gzip-compressed into a file of tmp; returns its path.
std::string write_gz(const TempDir& tmp, const std::string& name, const std::string& bytes) {
  gzFile f = gzopen(tmp.file(name).c_str(), "wb");
  EXPECT_NE(f, nullptr);
  EXPECT_EQ(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())), static_cast<int>(bytes.size()));
  gzclose(f);
  return tmp.file(name);
}

// Runs fn, expects a twin::Error whose message contains every one of `parts`.
void expect_error(const std::function<void()>& fn, const std::vector<std::string>& parts) {
  try {
    fn();
  } catch (const Error& e) {
    const std::string msg = e.what();
    for (const auto& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' not in: " << msg;
    return;
  }
  ADD_FAILURE() << "expected twin::Error";
}

TokenCounts count_words(const std::string& text) {
  TokenCounts c;
  c.add(split_whitespace(text));
  return c;
}

// ---------------------------------------------------------------- Vocab

TEST(Vocab, DefaultSpecialsHaveReservedIds) {
  Vocab v;
  EXPECT_EQ(v.size(), 4);
  EXPECT_EQ(v.id(kPadWord), kPadId);
  EXPECT_EQ(v.id(kUnkWord), kUnkId);
  EXPECT_EQ(v.id(kBosWord), kBosId);
  EXPECT_EQ(v.id(kEosWord), kEosId);
  EXPECT_EQ(v.unk_id(), kUnkId);
  EXPECT_EQ(v.add("cat"), 4);
  EXPECT_EQ(v.add("cat"), 4);  // adding again returns the existing id
  EXPECT_EQ(v.word(4), "cat");
}

TEST(Vocab, FromCountsAppliesMinCountAndMaxSizeWithFirstAppearanceTies) {
  // counts: b=3 a=2 c=2 d=1 e=1; a appears before c, d before e.
  const TokenCounts c = count_words("b a c b d a b c e");
  EXPECT_EQ(c.count("b"), 3);
  EXPECT_EQ(c.count("zzz"), 0);
  {
    const Vocab v = Vocab::from_counts(c);
    ASSERT_EQ(v.size(), 9);
    EXPECT_EQ(v.decode({4, 5, 6, 7, 8}), (std::vector<std::string>{"b", "a", "c", "d", "e"}));
    EXPECT_TRUE(v.frozen());
  }
  {
    const Vocab v = Vocab::from_counts(c, VocabOptions{.min_count = 2});
    EXPECT_EQ(v.size(), 7);
    EXPECT_FALSE(v.contains("d"));
    EXPECT_EQ(v.id("d"), kUnkId);
  }
  {
    const Vocab v = Vocab::from_counts(c, VocabOptions{.max_size = 6});  // 4 specials + 2 words
    ASSERT_EQ(v.size(), 6);
    EXPECT_EQ(v.word(4), "b");
    EXPECT_EQ(v.word(5), "a");  // a and c tie at 2; a came first
  }
}

TEST(Vocab, UnknownWordsMapToUnkAndEncodeDecode) {
  const Vocab v = Vocab::from_counts(count_words("the cat sat"));
  const Ids ids = v.encode({"the", "dog", "sat"});
  EXPECT_EQ(ids, (Ids{4, kUnkId, 6}));
  EXPECT_EQ(v.decode(ids), (std::vector<std::string>{"the", "<unk>", "sat"}));
  EXPECT_EQ(v.find("dog"), -1);
  expect_error([&] { v.word(7); }, {"id 7", "[0, 7)"});
  expect_error([&] { v.word(-1); }, {"id -1"});
}

TEST(Vocab, StrictAndUnklessVocabulariesRejectUnknownWords) {
  VocabOptions strict;
  strict.strict = true;
  const Vocab s = Vocab::from_counts(count_words("a b"), strict);
  EXPECT_EQ(s.id("a"), 4);
  EXPECT_EQ(s.unk_id(), -1);
  expect_error([&] { s.id("zebra"); }, {"'zebra'", "strict"});

  const Vocab none = Vocab::from_counts(count_words("a b"), VocabOptions{.specials = {"<pad>"}});
  EXPECT_EQ(none.unk_id(), -1);
  expect_error([&] { none.id("zebra"); }, {"'zebra'", "<unk>"});
}

TEST(Vocab, PtbStyleHasNoReservedIds) {
  // PTB text already contains <unk>; <eos> is appended per line by the LM reader. Both are plain words.
  TokenCounts c;
  for (const char* line : {"the <unk> fell", "the market <unk> <unk>"}) {
    c.add(split_whitespace(line));
    c.add("<eos>");
  }
  const Vocab v = Vocab::from_counts(c, VocabOptions{.specials = {}});
  EXPECT_EQ(v.special_count(), 0);
  ASSERT_EQ(v.size(), 5);
  EXPECT_EQ(v.id("<unk>"), 0);  // count 3
  EXPECT_EQ(v.id("the"), 1);    // count 2, before <eos> (also 2) by first appearance
  EXPECT_EQ(v.id("<eos>"), 2);
  EXPECT_EQ(v.id("fell"), 3);
  EXPECT_EQ(v.id("market"), 4);
  EXPECT_FALSE(v.contains(kPadWord));
  EXPECT_EQ(v.id("never-seen"), 0);  // still falls back to the corpus's own <unk>
}

TEST(Vocab, CorpusWordEqualToSpecialIsNotDuplicated) {
  const Vocab v = Vocab::from_counts(count_words("<unk> x <unk> </s>"));
  EXPECT_EQ(v.size(), 5);
  EXPECT_EQ(v.id("<unk>"), kUnkId);
  EXPECT_EQ(v.id("</s>"), kEosId);
  EXPECT_EQ(v.id("x"), 4);
}

TEST(Vocab, FrozenRejectsNewWordsAndBadInputIsRejected) {
  Vocab v;
  v.add("a");
  v.freeze();
  EXPECT_EQ(v.add("a"), 4);  // existing words are fine
  expect_error([&] { v.add("b"); }, {"'b'", "frozen"});

  Vocab g;
  expect_error([&] { g.add(""); }, {"empty word"});
  expect_error([&] { g.add("a\nb"); }, {"line break"});
  expect_error([&] { g.add("\xC3"); }, {"UTF-8"});
  expect_error([] { Vocab bad(VocabOptions{.specials = {"<pad>", "<pad>"}}); }, {"'<pad>' twice"});
  expect_error([] { Vocab bad(VocabOptions{.max_size = 2}); }, {"max_size is 2", "4 specials"});
  expect_error([] { TokenCounts c; c.add("x", -1); }, {"'x'", ">= 0"});
}

TEST(Vocab, SaveLoadRoundTrip) {
  TempDir tmp;
  const Vocab v = Vocab::from_counts(count_words("猫 the 猫 cat the 猫"));
  v.save(tmp.file("v.txt"));
  std::ifstream in(tmp.file("v.txt"), std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, "<pad>\n<unk>\n<s>\n</s>\n猫\nthe\ncat\n");

  const Vocab back = Vocab::load(tmp.file("v.txt"));
  ASSERT_EQ(back.size(), v.size());
  for (std::int32_t i = 0; i < v.size(); ++i) EXPECT_EQ(back.word(i), v.word(i));
  EXPECT_EQ(back.id("unseen"), kUnkId);
  EXPECT_TRUE(back.frozen());

  VocabOptions ptb{.specials = {}};
  const Vocab p = Vocab::from_counts(count_words("a <unk> b <eos>"), ptb);
  p.save(tmp.file("ptb.txt"));
  const Vocab pb = Vocab::load(tmp.file("ptb.txt"), ptb);
  EXPECT_EQ(pb.decode({0, 1, 2, 3}), (std::vector<std::string>{"a", "<unk>", "b", "<eos>"}));
  EXPECT_EQ(pb.unk_id(), 1);
}

TEST(Vocab, LoadErrorsNameFileAndLine) {
  TempDir tmp;
  const VocabOptions ptb{.specials = {}};
  const std::string empty = tmp.write("empty.txt", "a\nb\n\nc\n");
  expect_error([&] { Vocab::load(empty, ptb); }, {empty + ":3", "empty line"});
  const std::string dup = tmp.write("dup.txt", "a\nb\nc\nb\n");
  expect_error([&] { Vocab::load(dup, ptb); }, {dup + ":4", "duplicate word 'b'", "first on line 2"});
  const std::string bad = tmp.write("bad.txt", "a\nb\xFF\n");
  expect_error([&] { Vocab::load(bad, ptb); }, {bad + ":2", "UTF-8 at byte 1 of the word"});
  // A PTB vocabulary read with the default specials: line 1 is not <pad>.
  const std::string plain = tmp.write("plain.txt", "the\ncat\n");
  expect_error([&] { Vocab::load(plain); }, {plain + ":1", "'<pad>'", "'the'"});
  const std::string shorter = tmp.write("short.txt", "<pad>\n<unk>\n");
  expect_error([&] { Vocab::load(shorter); }, {shorter, "2 lines", "4 words"});
  expect_error([&] { Vocab::load(tmp.file("missing.txt")); }, {tmp.file("missing.txt"), "no such file"});
  // CRLF files load cleanly.
  const Vocab crlf = Vocab::load(tmp.write("crlf.txt", "x\r\ny\r\n"), ptb);
  EXPECT_EQ(crlf.id("y"), 1);
}

// ---------------------------------------------------------------- batches

TEST(PadBatch, ShapesMaskAndTimeMajorFlatOrder) {
  const std::vector<Ids> seqs = {{5, 6, 7}, {8, 9}, {4}};
  const SeqBatch b = pad_batch(seqs, 0);
  ASSERT_EQ(b.steps(), 3);
  ASSERT_EQ(b.size(), 3);
  IdMat want(3, 3);
  want << 5, 8, 4,  //
      6, 9, 0,      //
      7, 0, 0;
  EXPECT_EQ(b.ids, want);
  EXPECT_EQ(b.lengths, (std::vector<int>{3, 2, 1}));
  EXPECT_EQ(b.tokens(), 6);
  ASSERT_EQ(b.mask.rows(), 9);
  ASSERT_EQ(b.mask.cols(), 1);
  const std::vector<Real> mask(b.mask.data(), b.mask.data() + 9);
  EXPECT_EQ(mask, (std::vector<Real>{1, 1, 1, 1, 1, 0, 1, 0, 0}));
  EXPECT_EQ(b.flat(), (Ids{5, 8, 4, 6, 9, 0, 7, 0, 0}));
}

TEST(PadBatch, SubsetUsesGivenOrderAndPadId) {
  const std::vector<Ids> seqs = {{1}, {2, 3}, {4, 5, 6}};
  const SeqBatch b = pad_batch(seqs, std::vector<int>{2, 0}, -1);
  EXPECT_EQ(b.flat(), (Ids{4, 1, 5, -1, 6, -1}));
  EXPECT_EQ(b.lengths, (std::vector<int>{3, 1}));
  expect_error([&] { pad_batch(seqs, std::vector<int>{3}); }, {"index 3", "3 sequences"});
  expect_error([&] { pad_batch({{1}, {}}); }, {"sequence 1 is empty"});
  expect_error([&] { pad_batch({}); }, {"empty batch"});
}

std::vector<int> some_lengths(int n) {
  std::vector<int> lengths;
  for (int i = 0; i < n; ++i) lengths.push_back(1 + (i * 37 + 11) % 29);
  return lengths;
}

TEST(MakeBatches, CoversEveryIndexOnceAndSortsInsideBatches) {
  const std::vector<int> lengths = some_lengths(103);
  Rng rng(7);
  const auto batches = make_batches(lengths, {.batch_size = 8, .maxi_batch = 4}, rng);
  std::vector<int> seen;
  for (const auto& b : batches) {
    ASSERT_FALSE(b.empty());
    EXPECT_LE(b.size(), 8u);
    for (std::size_t k = 1; k < b.size(); ++k) EXPECT_LE(lengths[b[k - 1]], lengths[b[k]]);
    seen.insert(seen.end(), b.begin(), b.end());
  }
  std::sort(seen.begin(), seen.end());
  std::vector<int> all(lengths.size());
  std::iota(all.begin(), all.end(), 0);
  EXPECT_EQ(seen, all);
  // Sorting windows of 32 examples packs similar lengths together: far less spread than unsorted groups.
  auto spread = [&](const std::vector<std::vector<int>>& bs) {
    int total = 0;
    for (const auto& b : bs) {
      auto [lo, hi] = std::minmax_element(b.begin(), b.end(), [&](int x, int y) { return lengths[x] < lengths[y]; });
      total += lengths[*hi] - lengths[*lo];
    }
    return total;
  };
  Rng rng2(7);
  const auto unsorted = make_batches(lengths, {.batch_size = 8, .maxi_batch = 4, .sort_by_length = false}, rng2);
  EXPECT_LT(2 * spread(batches), spread(unsorted));
}

TEST(MakeBatches, DeterministicForASeedAndShuffled) {
  const std::vector<int> lengths = some_lengths(60);
  const BatchingOptions opts{.batch_size = 5, .maxi_batch = 3};
  Rng a(42), b(42), c(43);
  const auto ba = make_batches(lengths, opts, a);
  EXPECT_EQ(ba, make_batches(lengths, opts, b));
  EXPECT_EQ(a.next_u64(), b.next_u64());  // both Rngs advanced identically
  EXPECT_NE(ba, make_batches(lengths, opts, c));
  Rng d(42);
  const auto second_epoch = make_batches(lengths, opts, a);
  EXPECT_NE(second_epoch, make_batches(lengths, opts, d));  // a later epoch draws a new order
}

TEST(MakeBatches, MaxTokensBoundsPaddedSize) {
  const std::vector<int> lengths = some_lengths(80);
  Rng rng(3);
  const auto batches = make_batches(lengths, {.batch_size = 100, .max_tokens = 60, .maxi_batch = 0}, rng);
  std::size_t total = 0;
  for (const auto& b : batches) {
    int longest = 0;
    for (int i : b) longest = std::max(longest, lengths[i]);
    EXPECT_LE(static_cast<int>(b.size()) * longest, 60);
    total += b.size();
  }
  EXPECT_EQ(total, lengths.size());
  // An example longer than max_tokens becomes a batch of its own instead of being dropped.
  const auto lone = make_batches({3, 50, 2}, {.batch_size = 4, .max_tokens = 10, .shuffle = false}, rng);
  EXPECT_EQ(lone, (std::vector<std::vector<int>>{{2, 0}, {1}}));
}

TEST(MakeBatches, WithoutShuffleIsStableAndLeavesRngAlone) {
  Rng rng(5);
  const std::string before = rng.save();
  const std::vector<int> lengths = {4, 2, 4, 1, 3};
  const auto sorted = make_batches(lengths, {.batch_size = 2, .maxi_batch = 0, .shuffle = false}, rng);
  EXPECT_EQ(sorted, (std::vector<std::vector<int>>{{3, 1}, {4, 0}, {2}}));  // ties keep input order
  const auto plain =
      make_batches(lengths, {.batch_size = 2, .shuffle = false, .sort_by_length = false}, rng);
  EXPECT_EQ(plain, (std::vector<std::vector<int>>{{0, 1}, {2, 3}, {4}}));
  EXPECT_EQ(rng.save(), before);
  EXPECT_TRUE(make_batches({}, {}, rng).empty());
  expect_error([&] { make_batches({1}, {.batch_size = 0}, rng); }, {"batch_size is 0"});
  expect_error([&] { make_batches({1, -2}, {}, rng); }, {"example 1", "-2"});
}

// The evaluation batches every task and prediction mode uses: all examples sorted by length at once, ties in
// input order, by the task's own length function.
TEST(EvalBatches, SortAllByTheGivenLengthWithoutAnRng) {
  const std::vector<std::string> words = {"dddd", "bb", "dddd", "a", "ccc"};
  const auto by_size = eval_batches(words, [](const std::string& w) { return w.size(); }, 2);
  EXPECT_EQ(by_size, (std::vector<std::vector<int>>{{3, 1}, {4, 0}, {2}}));
  // Another length function gives another order: the batching reads only the lengths it is given.
  const auto reversed = eval_batches(words, [](const std::string& w) { return 5 - w.size(); }, 3);
  EXPECT_EQ(reversed, (std::vector<std::vector<int>>{{0, 2, 4}, {1, 3}}));
  EXPECT_TRUE(eval_batches(std::vector<std::string>{}, [](const std::string& w) { return w.size(); }, 4).empty());
  const BatchingOptions o = eval_batching(7);
  EXPECT_EQ(o.batch_size, 7);
  EXPECT_EQ(o.maxi_batch, 0);
  EXPECT_FALSE(o.shuffle);
  expect_error([&] { eval_batches(words, [](const std::string& w) { return w.size(); }, 0); }, {"batch_size is 0"});
}

// ---------------------------------------------------------------- text

TEST(ReadLines, PlainFileWithCrlfBomAndNoFinalNewline) {
  TempDir tmp;
  const std::string p = tmp.write("a.txt", "\xEF\xBB\xBFhello world\r\n\r\n中文 行\r\nlast");
  EXPECT_EQ(read_lines(p), (std::vector<std::string>{"hello world", "", "中文 行", "last"}));
  EXPECT_TRUE(read_lines(tmp.write("empty.txt", "")).empty());
  EXPECT_EQ(read_lines(tmp.write("nl.txt", "a\n")), (std::vector<std::string>{"a"}));
}

TEST(ReadLines, GzipIsReadTransparently) {
  TempDir tmp;
  const std::string text = "first line\r\nsecond\r\n第三\r\n";
  EXPECT_EQ(read_lines(write_gz(tmp, "a.txt.gz", text)), (std::vector<std::string>{"first line", "second", "第三"}));
  // Also through the gzip tool, the way data_prep makes its files.
  const std::string plain = tmp.write("b.txt", text);
  ASSERT_EQ(std::system(("gzip -f '" + plain + "'").c_str()), 0);
  EXPECT_EQ(read_lines(plain + ".gz"), read_lines(tmp.write("c.txt", text)));
}

TEST(ReadLines, LongLinesSpanningReadChunks) {
  TempDir tmp;
  const std::string big(200000, 'x');
  const std::string text = "a\n" + big + "\nb\n" + big;
  const std::vector<std::string> want = {"a", big, "b", big};
  EXPECT_EQ(read_lines(tmp.write("big.txt", text)), want);
  EXPECT_EQ(read_lines(write_gz(tmp, "big.gz", text)), want);
}

TEST(ReadLines, ErrorsNameThePath) {
  TempDir tmp;
  expect_error([&] { read_lines(tmp.file("nope.txt")); }, {tmp.file("nope.txt"), "no such file"});
  expect_error([&] { read_lines(tmp.file("")); }, {"directory"});
  // A gzip stream cut in half must fail loudly, not return a silently shortened corpus.
  std::string lines;
  for (int i = 0; i < 2000; ++i) lines += "line number " + std::to_string(i * 7919) + "\n";
  const std::string gz = write_gz(tmp, "full.gz", lines);
  std::ifstream in(gz, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  const std::string cut = tmp.write("cut.gz", bytes.substr(0, bytes.size() / 2));
  expect_error([&] { read_lines(cut); }, {cut, "truncated"});
}

TEST(LineReader, CountsLinesForMessages) {
  TempDir tmp;
  const std::string p = tmp.write("r.txt", "x\ny\n");
  LineReader r(p);
  std::string line;
  ASSERT_TRUE(r.next(line));
  ASSERT_TRUE(r.next(line));
  EXPECT_EQ(line, "y");
  EXPECT_EQ(r.line_no(), 2);
  EXPECT_EQ(r.where(), p + ":2");
  EXPECT_FALSE(r.next(line));
  EXPECT_FALSE(r.next(line));
}

// The reader checks UTF-8 once for every format: the line and byte named, in a gzip file too, and the line
// called what the format calls it (a vocabulary's lines are words).
TEST(LineReader, ChecksUtf8NamingTheUnit) {
  TempDir tmp;
  const std::string text = "ok\n中文\xE4\xB8\n";
  for (const std::string& p : {tmp.write("u.txt", text), write_gz(tmp, "u.txt.gz", text)}) {
    LineReader r(p);
    std::string line;
    ASSERT_TRUE(r.next(line));
    expect_error([&] { r.next(line); }, {p + ":2: invalid UTF-8 at byte 6 of the line (0xE4"});
    expect_error([&] { read_lines(p); }, {p + ":2: invalid UTF-8 at byte 6 of the line"});
    LineReader words(p, "word");
    ASSERT_TRUE(words.next(line));
    EXPECT_EQ(line, "ok");
    expect_error([&] { words.next(line); }, {p + ":2: invalid UTF-8 at byte 6 of the word (0xE4"});
  }
  // The BOM is stripped before the check, and only on the first line.
  EXPECT_EQ(read_lines(tmp.write("b.txt", "\xEF\xBB\xBF" "a\n")), (std::vector<std::string>{"a"}));
  std::string l = "\xEF\xBB\xBFx\r";
  strip_line_end(l, /*first=*/false);
  EXPECT_EQ(l, "\xEF\xBB\xBFx");
  strip_line_end(l, /*first=*/true);
  EXPECT_EQ(l, "x");
}

// Standard input (the prediction modes' default) follows the file reader's conventions: CR and a first-line
// BOM stripped, UTF-8 checked with the line named.
TEST(ReadStdinLines, SameConventionsAsTheFileReader) {
  auto from_stdin = [](const std::string& text, std::vector<std::string>* lines) {
    std::istringstream in(text);
    std::streambuf* old = std::cin.rdbuf(in.rdbuf());
    const std::string err = test::error_of([&] { *lines = read_stdin_lines(); });
    std::cin.rdbuf(old);
    std::cin.clear();
    return err;
  };
  std::vector<std::string> lines;
  EXPECT_EQ(from_stdin("\xEF\xBB\xBF" "a b\r\n\r\n中文\n", &lines), test::kNoErrorThrown);
  EXPECT_EQ(lines, (std::vector<std::string>{"a b", "", "中文"}));
  const std::string err = from_stdin("ok\nfine\nbad\xFF\n", &lines);
  EXPECT_NE(err.find("<stdin>:3: invalid UTF-8 at byte 3 of the line"), std::string::npos) << err;
}

TEST(SplitWhitespace, AsciiAndIdeographicSpace) {
  EXPECT_EQ(split_whitespace("  the\tcat \r\n sat\v"), (std::vector<std::string>{"the", "cat", "sat"}));
  EXPECT_EQ(split_whitespace("上海\u3000浦东 开发\u3000\u3000与"),
            (std::vector<std::string>{"上海", "浦东", "开发", "与"}));
  EXPECT_TRUE(split_whitespace(" \t\u3000 ").empty());
  EXPECT_TRUE(split_whitespace("").empty());
  // U+00A0 (no-break space) is data, not a separator; and a lone E3 80 prefix is not U+3000.
  EXPECT_EQ(split_whitespace("a\u00A0b"), (std::vector<std::string>{"a\u00A0b"}));
  EXPECT_EQ(split_whitespace("\u3001x"), (std::vector<std::string>{"\u3001x"}));
}

TEST(Utf8, CharsOfMixedAsciiAndChinese) {
  EXPECT_EQ(utf8_chars("ab中文c€😀"), (std::vector<std::string>{"a", "b", "中", "文", "c", "€", "😀"}));
  EXPECT_TRUE(utf8_chars("").empty());
  EXPECT_TRUE(is_utf8_valid("纯中文 and ASCII"));
  EXPECT_EQ(utf8_error_offset("ok"), -1);
  // Boundary code points that are valid: U+0080, U+07FF, U+0800, U+FFFF, U+10000, U+10FFFF.
  EXPECT_TRUE(is_utf8_valid("\xC2\x80\xDF\xBF\xE0\xA0\x80\xEF\xBF\xBF\xF0\x90\x80\x80\xF4\x8F\xBF\xBF"));
}

TEST(Utf8, InvalidSequencesAreRejectedWithTheirOffset) {
  const std::vector<std::pair<std::string, std::int64_t>> cases = {
      {"ab\x80", 2},               // stray continuation byte
      {"中\xE6\x96", 3},           // truncated 3-byte sequence at the end
      {"x\xE6\x96y", 1},           // truncated in the middle
      {"\xC0\xAF", 0},             // overlong '/'
      {"a\xE0\x80\xAF", 1},        // overlong 3-byte form
      {"\xF0\x80\x80\xAF", 0},     // overlong 4-byte form
      {"ok\xED\xA0\x80", 2},       // UTF-16 surrogate U+D800
      {"\xF4\x90\x80\x80", 0},     // above U+10FFFF
      {"\xF8\x88\x80\x80\x80", 0}, // 5-byte form
      {"文\xFF", 3},
  };
  for (const auto& [s, off] : cases) {
    EXPECT_EQ(utf8_error_offset(s), off) << "case at offset " << off;
    EXPECT_FALSE(is_utf8_valid(s));
    expect_error([&] { utf8_chars(s); }, {"invalid UTF-8 at byte " + std::to_string(off) + " ("});
    expect_error([&] { require_utf8(s, "f.txt:7"); },
                 {"f.txt:7: invalid UTF-8 at byte " + std::to_string(off) + " of the line (0x"});
  }
  expect_error([] { utf8_chars("ab\x80"); }, {"0x80"});
  // Every reader's message has the same shape: where, 0-based offset, what, the byte, the fix.
  expect_error([] { require_utf8("caf\xE9", "v.txt:3", "word"); },
               {"v.txt:3: invalid UTF-8 at byte 3 of the word (0xE9, bytes count from 0); expected UTF-8 text"});
  EXPECT_NO_THROW(require_utf8("中文 ok", "v.txt:1"));
  EXPECT_NO_THROW(require_utf8("", "v.txt:1"));
}

}  // namespace
}  // namespace twin
