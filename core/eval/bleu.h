// Corpus-level MT metrics: BLEU-4 (Papineni et al. 2002) and chrF (Popović 2015), on the 0-100 scale.
// References followed (github.com/mjpost/sacrebleu 2.x): sacrebleu/metrics/bleu.py (n-gram statistics,
// compute_bleu with its smoothing methods, closest reference length with ties to the shorter, the signature
// and the "BLEU = ..." line), sacrebleu/metrics/chrf.py + helpers.py (chrF with effective-order averaging,
// the default since 2.0), sacrebleu/metrics/base.py (empty references dropped in multi-reference sets);
// and mosesdecoder's scripts/generic/multi-bleu.perl, whose statistics and score equal tokenize "none" here.
//
// Two flavours that must not be confused in results tables (bleu_label() names them):
//   tokenize "13a"  -> "sacreBLEU": detokenised hypotheses against raw references, the comparable number
//                      (eval/tokenize_13a.h).
//   tokenize "none" -> "BLEU (tokenised, multi-bleu)": tokenised text split on whitespace, as multi-bleu.perl
//                      on Moses-tokenised files; depends on the tokenisation, so not comparable across papers.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "base/names.h"

namespace twin {

// The tokenizer applied before counting n-grams: none (split on whitespace) or sacreBLEU's default 13a.
enum class BleuTokenize { kNone, k13a };
inline constexpr NameTable<BleuTokenize, 2> kBleuTokenizeNames{{{BleuTokenize::kNone, "none"}, {BleuTokenize::k13a, "13a"}}};
// The smoothing of orders without a match, as sacreBLEU defines them.
enum class BleuSmooth { kNone, kExp, kFloor, kAddK };
inline constexpr NameTable<BleuSmooth, 4> kBleuSmoothNames{
    {{BleuSmooth::kNone, "none"}, {BleuSmooth::kExp, "exp"}, {BleuSmooth::kFloor, "floor"}, {BleuSmooth::kAddK, "add-k"}}};
// The value spelled `name` (a command-line or config value); an Error naming the allowed ones otherwise.
BleuTokenize bleu_tokenize_of(const std::string& name);
BleuSmooth bleu_smooth_of(const std::string& name);

struct BleuOptions {
  BleuTokenize tokenize = BleuTokenize::kNone;
  bool lowercase = false;          // lowercase hypotheses and references first (utf8_lower, data/unicode_text.h)
  BleuSmooth smooth = BleuSmooth::kNone;
  // floor: the numerator used for orders with no match (default 0.1); add-k: k added to the matches and
  // totals of orders 2-4 (default 1). Unset = sacreBLEU's default for the method; ignored by none and exp.
  std::optional<double> smooth_value;
};

// Sufficient statistics of BLEU over any set of sentences: sum them over sentences, files or shards.
// matches[n-1], totals[n-1]: clipped matching and total hypothesis n-grams; ref_len: closest reference
// length per sentence, summed.
struct BleuStats {
  std::array<double, 4> matches{}, totals{};
  double hyp_len = 0, ref_len = 0;
  BleuStats& operator+=(const BleuStats& o);
};

struct BleuScore {
  double score = 0;                   // 0-100
  std::array<double, 4> precisions{};   // 0-100, after smoothing (all 0 when nothing matches, as sacreBLEU)
  double bp = 0, ratio = 0, hyp_len = 0, ref_len = 0;
  std::string label;       // bleu_label(options)
  std::string signature;   // sacreBLEU 2.x style, e.g. "nrefs:1|case:lc|eff:no|tok:13a|smooth:none|version:twinrnn"
  // "BLEU = 34.12 65.3/41.2/28.0/19.9 (BP = 0.987 ratio = 0.987 hyp_len = 12345 ref_len = 12500)"
  std::string str() const;
  // "<label>: <str()> [<signature>]", the unambiguous form for logs and tables.
  std::string summary() const;
};

// "sacreBLEU" for tokenize 13a, "BLEU (tokenised, multi-bleu)" for tokenize none.
std::string bleu_label(const BleuOptions& opt);

// Statistics of one hypothesis against its references (at least one non-empty; empty ones are skipped, as
// sacreBLEU does for variable numbers of references). An empty hypothesis is fine (length 0).
BleuStats sentence_stats(const std::string& hyp, const std::vector<std::string>& refs, const BleuOptions& opt);
// BLEU from summed statistics. nrefs goes into the signature only (-1 prints "var").
BleuScore bleu_from_stats(const BleuStats& stats, const BleuOptions& opt, int nrefs = 1);
// refs[r][i] is sentence i of reference set r; every set has hyps.size() sentences.
BleuScore corpus_bleu(const std::vector<std::string>& hyps, const std::vector<std::vector<std::string>>& refs,
                      const BleuOptions& opt);

// ---- chrF ----

struct ChrfOptions {
  int char_order = 6;      // character n-gram orders 1..char_order (word order 0: chrF, not chrF++)
  double beta = 2;         // recall weighs beta times as much as precision
  bool lowercase = false;
  bool whitespace = false;   // false: whitespace removed before extracting character n-grams
};

// Per order n (index n-1): hypothesis n-grams, reference n-grams, matches. Summable like BleuStats.
struct ChrfStats {
  std::vector<double> hyp, ref, match;
  ChrfStats& operator+=(const ChrfStats& o);
};

struct ChrfScore {
  double score = 0;   // 0-100
  double beta = 2;
  std::string signature;   // e.g. "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:twinrnn"
  std::string str() const;   // "chrF2 = 57.34"
};

// With several references, the statistics of the one with the best sentence-level chrF (the first on ties).
ChrfStats chrf_sentence_stats(const std::string& hyp, const std::vector<std::string>& refs, const ChrfOptions& opt);
ChrfScore chrf_from_stats(const ChrfStats& stats, const ChrfOptions& opt, int nrefs = 1);
ChrfScore corpus_chrf(const std::vector<std::string>& hyps, const std::vector<std::vector<std::string>>& refs,
                      const ChrfOptions& opt = {});

}  // namespace twin
