// Characters and BMES tags for Chinese word segmentation (ATR paper Appendix A.2.3, after Chen et al. 2015):
// every character of a sentence gets B, M or E (begin, middle, end of a multi-character word) or S (a
// single-character word). Words are split into characters by utf8_chars(word, where) (core/data/text.h), so a
// bad byte is reported with where it was; segmented lines are read by read_segmented (core/eval/segmentation.h).
#pragma once
#include <string>
#include <vector>

#include "base/real.h"
#include "nn/crf.h"

namespace twin::cws {

enum Tag : int { kB = 0, kM = 1, kE = 2, kS = 3 };
inline constexpr int kNumTags = 4;
inline constexpr const char* kTagLetters = "BMES";

// 'B','M','E','S' -> Tag; anything else is an Error naming `where`.
int tag_from_letter(char c, const std::string& where);

// One tag per character: S for a one-character word, B M* E otherwise.
std::vector<int> words_to_tags(const std::vector<std::string>& words, const std::string& where);

// Words from characters and tags. Any tag sequence gives a segmentation (a model's output need not be
// well formed): a word starts at B or S, or after E or S; it ends at E or S, or before B or S.
std::vector<std::string> tags_to_words(const std::vector<std::string>& chars, const std::vector<int>& tags);

// The BMES grammar as 0/1 masks for constrained decoding: allowed[i][j] = 1 when tag j may follow tag i
// (B->M, B->E, M->M, M->E, E->B, E->S, S->B, S->S); a sentence starts with B or S and ends with E or S.
Mat bmes_allowed_transitions();   // [4, 4]
Mat bmes_allowed_start();         // [1, 4]
Mat bmes_allowed_end();           // [1, 4]
// The three masks as the CRF's decoding constraint (nn/crf.h).
CrfConstraint bmes_constraint();

}  // namespace twin::cws
