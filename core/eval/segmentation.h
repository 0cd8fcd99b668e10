// Chinese word segmentation scores as the SIGHAN bakeoff defines them (Emerson 2005; the bakeoff `score`
// script of icwb2-data): precision, recall and F1 over words, the OOV rate of the gold text, and the recall
// of OOV and of in-vocabulary (IV) gold words; and the bakeoff's file formats (segmented lines, word lists).
// Used by CWS (tasks/cws) for its metric, its data and its outputs (plots/rescore.py recomputes the scores).
//
// Alignment: within one sentence a test word is correct iff the gold segmentation has a word with exactly
// the same [start, end) character span (so both its boundaries are right and nothing was merged into or cut
// out of it). A gold word is OOV when it is not in the training word list, IV otherwise; test words are never
// classified. All rates are micro-averaged: counts are summed over the sentences first.
//
// Difference from the perl `score` script: it aligns each line's word sequences with `diff -y` (a longest
// common subsequence of words), which can also match an identical word at a different character offset
// (gold "看 看 看看" vs test "看看 看 看": spans match 0 words, diff matches 2). Spans are the definition the
// bakeoff papers state; the two agree whenever no such shifted repeat occurs, and spans never count more.
// Measured against the perl script on the MSR and PKU gold test files with 8 % of the words split and 8 %
// merged at random: MSR same correct count (81,741), one found gold word counted OOV here and IV there
// (diff had matched 是 and 你们 at shifted offsets in line 210); PKU 78,987 correct here, 78,990 there
// (F1 0.780986 vs 0.781016). The script also skips a line whose gold side is empty and stops at the end of
// the shorter file; here segmentations covering different characters and unequal sentence counts are errors.
//
// Zero denominators give 0: precision with no test words, recall / OOV rate with no gold words, F1 when
// P + R = 0, OOV recall with no OOV gold words (the script prints "--" there), IV recall with no IV words.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_set>
#include <vector>

namespace twin {

struct SegCounts {
  long gold_words = 0;    // words in the gold segmentation
  long test_words = 0;    // words in the segmentation being scored
  long correct = 0;       // test words whose character span is a gold word's span
  long oov_gold = 0;      // gold words not in the training word list
  long oov_correct = 0;   // ... of them found (a correct test word has their span)
  long iv_gold = 0;       // gold words in the training word list (iv_gold + oov_gold = gold_words)
  long iv_correct = 0;    // ... of them found (iv_correct + oov_correct = correct)

  void add(const SegCounts& o);
  double precision() const;    // correct / test_words
  double recall() const;       // correct / gold_words
  double f1() const;           // 2PR / (P + R)
  double oov_rate() const;     // oov_gold / gold_words
  double oov_recall() const;   // oov_correct / oov_gold
  double iv_recall() const;    // iv_correct / iv_gold
  // The counts and the six rates (as fractions, not percentages).
  nlohmann::json to_json() const;
  // "P 95.12 R 94.80 F 94.96 OOV-rate 2.61 R-oov 70.12 R-iv 95.61" (percentages, 2 decimals).
  std::string summary() const;
};

// One sentence. The two segmentations must cover the same characters (their concatenations must be equal),
// else a twin::Error naming `where` and the first character where they differ; an empty word or invalid
// UTF-8 is an Error too. Two empty sentences give all-zero counts.
SegCounts score_sentence(const std::vector<std::string>& gold, const std::vector<std::string>& test,
                         const std::unordered_set<std::string>& train_words, const std::string& where);

// Sum over sentences; the sentence counts must match (else Error). Errors from a sentence name it as
// "sentence N" (1-based: the line number in a .seg file).
SegCounts score_corpus(const std::vector<std::vector<std::string>>& gold,
                       const std::vector<std::vector<std::string>>& test,
                       const std::unordered_set<std::string>& train_words);

// A training word list: one word per line (LF or CRLF; a UTF-8 BOM and gzip are handled by LineReader);
// surrounding ASCII whitespace and U+3000 are trimmed and empty lines ignored, as the score script does. A
// line with whitespace inside, invalid UTF-8, a missing file or a list without any word is an Error naming
// the file (and line).
std::unordered_set<std::string> read_word_list(const std::string& path);

// A segmented file (bakeoff format, or our .seg files): one sentence per line, words separated by runs of
// ASCII whitespace or U+3000 (data/text.h split_whitespace: the CR of CRLF goes too). Every line is kept, so
// an empty line is an empty sentence and sentence i is line i + 1. Errors name file:line.
std::vector<std::vector<std::string>> read_segmented(const std::string& path);

// Bakeoff-format output, as the official gold files: each word followed by two spaces except the last,
// CRLF line ends, UTF-8 (no BOM), an empty sentence as an empty line. The gold files themselves are not
// uniform (PKU lines and 392 of the 3,985 MSR lines end with two extra spaces, a few MSR lines have three
// spaces between words); the score script trims and splits on any whitespace, so none of this matters to
// it. Written atomically (temp file + rename). A word that is empty or holds whitespace is an Error.
void write_segmented(const std::string& path, const std::vector<std::vector<std::string>>& sentences);

}  // namespace twin
