// BLEU-4 and chrF as sacreBLEU 2.x computes them (see bleu.h for the references followed).
#include "eval/bleu.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string_view>
#include <unordered_map>

#include "base/check.h"
#include "data/unicode_text.h"
#include "eval/tokenize_13a.h"

namespace twin {
namespace {

constexpr int kOrder = 4;
constexpr const char* kVersion = "twinrnn";

// n-gram -> count; the keys are views into strings the caller keeps alive.
using Counts = std::unordered_map<std::string_view, double>;

// Python's str.rstrip(): drops trailing whitespace only.
std::string_view rstrip(std::string_view s) {
  const std::string_view core = strip_unicode_whitespace(s);
  return core.empty() ? core : s.substr(0, static_cast<size_t>(core.data() + core.size() - s.data()));
}

// sacreBLEU's BLEU._preprocess_segment: optional lowercasing, then the tokenizer on the right-stripped
// line; the tokens are re-joined with single spaces so that an n-gram is a canonical substring "w1 w2 w3".
std::string bleu_preprocess(const std::string& line, const BleuOptions& opt) {
  const std::string cased = opt.lowercase ? utf8_lower(line) : line;
  const std::string_view s = rstrip(cased);
  const std::string tok = opt.tokenize == BleuTokenize::k13a ? tokenize_13a(s) : std::string(s);
  std::string out;
  for (std::string_view w : split_unicode_whitespace(tok)) {
    if (!out.empty()) out += ' ';
    out += w;
  }
  return out;
}

// All n-grams of orders 1..4 of a canonical (single-space separated) token string, in one map: the order of
// a key is its number of tokens, so keys of different orders never collide. Returns the token count.
double count_ngrams(std::string_view text, Counts& counts) {
  std::vector<size_t> begin, end;   // token boundaries
  for (size_t i = 0; i < text.size();) {
    const size_t sp = std::min(text.find(' ', i), text.size());
    begin.push_back(i);
    end.push_back(sp);
    i = sp + 1;
  }
  for (size_t n = 1; n <= kOrder; ++n)
    for (size_t i = 0; i + n <= begin.size(); ++i) counts[text.substr(begin[i], end[i + n - 1] - begin[i])] += 1;
  return static_cast<double>(begin.size());
}

int order_of(std::string_view ngram) { return 1 + static_cast<int>(std::count(ngram.begin(), ngram.end(), ' ')); }

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string nrefs_str(int nrefs) { return nrefs == -1 ? std::string("var") : std::to_string(nrefs); }

// Indices of the non-empty references of sentence i (sacreBLEU's base.py drops "" to allow a variable
// number of references per sentence); throws if there is none.
std::vector<const std::string*> sentence_refs(const std::vector<std::vector<std::string>>& refs, size_t i,
                                              const char* metric) {
  std::vector<const std::string*> out;
  for (const auto& set : refs)
    if (!set[i].empty()) out.push_back(&set[i]);
  TW_CHECK(!out.empty(), metric, ": line ", i + 1, " has only empty references");
  return out;
}

void check_corpus(size_t nhyps, const std::vector<std::vector<std::string>>& refs, const char* metric) {
  TW_CHECK(nhyps > 0, metric, ": empty corpus (no hypotheses)");
  TW_CHECK(!refs.empty(), metric, ": no reference sets given");
  for (size_t r = 0; r < refs.size(); ++r)
    TW_CHECK(refs[r].size() == nhyps, metric, ": ", nhyps, " hypotheses but reference set ", r, " has ",
             refs[r].size(), " sentences");
}

// ---- chrF ----

std::string chrf_preprocess(const std::string& line, const ChrfOptions& opt) {
  std::string s = opt.lowercase ? utf8_lower(line) : line;
  if (opt.whitespace) return s;
  std::string out;   // ''.join(line.split())
  for (std::string_view w : split_unicode_whitespace(s)) out += w;
  return out;
}

// Character n-gram counts per order 1..char_order, over code points (as Python indexes a str).
std::vector<Counts> char_ngrams(std::string_view s, int order) {
  std::vector<size_t> start;
  for (size_t i = 0; i < s.size(); ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) start.push_back(i);
  start.push_back(s.size());
  const size_t nchars = start.size() - 1;
  std::vector<Counts> out(static_cast<size_t>(order));
  for (size_t n = 1; n <= out.size(); ++n)
    for (size_t i = 0; i + n <= nchars; ++i) out[n - 1][s.substr(start[i], start[i + n] - start[i])] += 1;
  return out;
}

double chrf_f(const ChrfStats& st, double beta) {
  double avg_p = 0, avg_r = 0;
  int eff = 0;   // effective order: orders where both sides have n-grams (sacreBLEU 2.x default, eps_smoothing off)
  for (size_t i = 0; i < st.hyp.size(); ++i) {
    if (st.hyp[i] > 0 && st.ref[i] > 0) {
      avg_p += st.match[i] / st.hyp[i];
      avg_r += st.match[i] / st.ref[i];
      ++eff;
    }
  }
  if (eff == 0) return 0;
  avg_p /= eff;
  avg_r /= eff;
  if (avg_p + avg_r == 0) return 0;
  const double b2 = beta * beta;
  return 100 * (1 + b2) * avg_p * avg_r / (b2 * avg_p + avg_r);
}

}  // namespace

// ---- BLEU ----

BleuStats& BleuStats::operator+=(const BleuStats& o) {
  for (int n = 0; n < kOrder; ++n) {
    matches[n] += o.matches[n];
    totals[n] += o.totals[n];
  }
  hyp_len += o.hyp_len;
  ref_len += o.ref_len;
  return *this;
}

std::string bleu_label(const BleuOptions& opt) {
  return opt.tokenize == BleuTokenize::k13a ? "sacreBLEU" : "BLEU (tokenised, multi-bleu)";
}

BleuTokenize bleu_tokenize_of(const std::string& name) {
  const auto v = value_of(kBleuTokenizeNames, name);
  TW_CHECK(v.has_value(), "BLEU: unknown tokenize '", name, "' (allowed: ", names_joined(kBleuTokenizeNames, ", "), ")");
  return *v;
}

BleuSmooth bleu_smooth_of(const std::string& name) {
  const auto v = value_of(kBleuSmoothNames, name);
  TW_CHECK(v.has_value(), "BLEU: unknown smooth '", name, "' (allowed: ", names_joined(kBleuSmoothNames, ", "), ")");
  return *v;
}

BleuStats sentence_stats(const std::string& hyp, const std::vector<std::string>& refs, const BleuOptions& opt) {
  std::vector<std::string> ref_text;   // filled completely before counting: Counts keys view into it
  for (const auto& r : refs)
    if (!r.empty()) ref_text.push_back(bleu_preprocess(r, opt));
  TW_CHECK(!ref_text.empty(), "BLEU: a sentence needs at least one non-empty reference");

  // Clipping counts: per n-gram, its largest count in any one reference (multi-bleu.perl, sacreBLEU).
  Counts ref_max;
  std::vector<double> ref_lens;
  for (const auto& r : ref_text) {
    Counts c;
    ref_lens.push_back(count_ngrams(r, c));
    for (const auto& [ng, k] : c) ref_max[ng] = std::max(ref_max[ng], k);
  }
  const std::string hyp_text = bleu_preprocess(hyp, opt);
  Counts hc;
  BleuStats st;
  st.hyp_len = count_ngrams(hyp_text, hc);
  for (const auto& [ng, k] : hc) {
    const int n = order_of(ng) - 1;
    st.totals[n] += k;
    if (auto it = ref_max.find(ng); it != ref_max.end()) st.matches[n] += std::min(k, it->second);
  }
  // Closest reference length; on a tie the shorter one.
  double best_diff = -1;
  for (double len : ref_lens) {
    const double diff = std::abs(st.hyp_len - len);
    if (best_diff < 0 || diff < best_diff || (diff == best_diff && len < st.ref_len)) {
      best_diff = diff;
      st.ref_len = len;
    }
  }
  return st;
}

// sacreBLEU's BLEU.compute_bleu (max order 4, effective_order off).
BleuScore bleu_from_stats(const BleuStats& stats, const BleuOptions& opt, int nrefs) {
  const bool floor = opt.smooth == BleuSmooth::kFloor, add_k = opt.smooth == BleuSmooth::kAddK;
  const double smooth_value = opt.smooth_value.value_or(add_k ? 1.0 : 0.1);
  BleuScore s;
  s.label = bleu_label(opt);
  s.hyp_len = stats.hyp_len;
  s.ref_len = stats.ref_len;
  s.ratio = stats.ref_len > 0 ? stats.hyp_len / stats.ref_len : 0;
  s.bp = stats.hyp_len >= stats.ref_len ? 1.0 : stats.hyp_len > 0 ? std::exp(1 - stats.ref_len / stats.hyp_len) : 0.0;

  std::string smooth(name_of(kBleuSmoothNames, opt.smooth));
  if (floor || add_k) smooth += "[" + fmt("%.2f", smooth_value) + "]";
  s.signature = "nrefs:" + nrefs_str(nrefs) + "|case:" + (opt.lowercase ? "lc" : "mixed") +
                "|eff:no|tok:" + std::string(name_of(kBleuTokenizeNames, opt.tokenize)) + "|smooth:" + smooth + "|version:" + kVersion;

  // No match at any order: score 0 and all precisions 0 (sacreBLEU's early stop).
  if (std::all_of(stats.matches.begin(), stats.matches.end(), [](double m) { return m == 0; })) return s;
  double smooth_mteval = 1;
  for (int n = 0; n < kOrder; ++n) {
    double correct = stats.matches[n], total = stats.totals[n];
    if (add_k && n > 0) {
      correct += smooth_value;
      total += smooth_value;
    }
    if (total == 0) break;   // no n-grams of this order anywhere: the precision stays 0, hence BLEU 0
    if (correct > 0) {
      s.precisions[n] = 100 * correct / total;
    } else if (opt.smooth == BleuSmooth::kExp) {   // NIST / mteval-v13a: 1 / (2^k * total) for the k-th zero order
      smooth_mteval *= 2;
      s.precisions[n] = 100 / (smooth_mteval * total);
    } else if (floor) {
      s.precisions[n] = 100 * smooth_value / total;
    }
  }
  // A zero precision contributes log 0 (multi-bleu.perl and sacreBLEU use -9999999999): BLEU is then 0.
  double log_sum = 0;
  for (double p : s.precisions) log_sum += p > 0 ? std::log(p) : -9999999999.0;
  s.score = s.bp * std::exp(log_sum / kOrder);
  return s;
}

BleuScore corpus_bleu(const std::vector<std::string>& hyps, const std::vector<std::vector<std::string>>& refs,
                      const BleuOptions& opt) {
  check_corpus(hyps.size(), refs, "BLEU");
  BleuStats total;
  std::set<size_t> nrefs;
  for (size_t i = 0; i < hyps.size(); ++i) {
    std::vector<std::string> sent_refs;
    for (const std::string* r : sentence_refs(refs, i, "BLEU")) sent_refs.push_back(*r);
    nrefs.insert(sent_refs.size());
    total += sentence_stats(hyps[i], sent_refs, opt);
  }
  return bleu_from_stats(total, opt, nrefs.size() == 1 ? static_cast<int>(*nrefs.begin()) : -1);
}

std::string BleuScore::str() const {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "BLEU = %.2f %.1f/%.1f/%.1f/%.1f (BP = %.3f ratio = %.3f hyp_len = %lld ref_len = %lld)",
                score, precisions[0], precisions[1], precisions[2], precisions[3], bp, ratio,
                std::llround(hyp_len), std::llround(ref_len));
  return buf;
}

std::string BleuScore::summary() const { return label + ": " + str() + " [" + signature + "]"; }

// ---- chrF ----

ChrfStats& ChrfStats::operator+=(const ChrfStats& o) {
  if (hyp.empty()) return *this = o;
  TW_CHECK(o.hyp.size() == hyp.size(), "chrF: adding statistics of ", o.hyp.size(), " orders to ", hyp.size());
  for (size_t i = 0; i < hyp.size(); ++i) {
    hyp[i] += o.hyp[i];
    ref[i] += o.ref[i];
    match[i] += o.match[i];
  }
  return *this;
}

ChrfStats chrf_sentence_stats(const std::string& hyp, const std::vector<std::string>& refs, const ChrfOptions& opt) {
  TW_CHECK(opt.char_order >= 1, "chrF: char_order must be >= 1, got ", opt.char_order);
  TW_CHECK(opt.beta > 0, "chrF: beta must be > 0, got ", opt.beta);
  const std::string h = chrf_preprocess(hyp, opt);
  const std::vector<Counts> hyp_ngrams = char_ngrams(h, opt.char_order);
  ChrfStats best;
  double best_f = -1;
  bool any_ref = false;
  for (const auto& ref : refs) {
    if (ref.empty()) continue;
    any_ref = true;
    const std::string r = chrf_preprocess(ref, opt);
    const std::vector<Counts> ref_ngrams = char_ngrams(r, opt.char_order);
    ChrfStats st;
    for (size_t n = 0; n < hyp_ngrams.size(); ++n) {
      double hyp_count = 0, ref_count = 0, match = 0;
      for (const auto& [ng, k] : hyp_ngrams[n]) {
        hyp_count += k;
        if (auto it = ref_ngrams[n].find(ng); it != ref_ngrams[n].end()) match += std::min(k, it->second);
      }
      for (const auto& [ng, k] : ref_ngrams[n]) ref_count += k;
      st.hyp.push_back(ref_ngrams[n].empty() ? 0 : hyp_count);   // sacreBLEU: no hits without reference n-grams
      st.ref.push_back(ref_count);
      st.match.push_back(match);
    }
    if (const double f = chrf_f(st, opt.beta); f > best_f) {
      best_f = f;
      best = std::move(st);
    }
  }
  TW_CHECK(any_ref, "chrF: a sentence needs at least one non-empty reference");
  return best;
}

ChrfScore chrf_from_stats(const ChrfStats& stats, const ChrfOptions& opt, int nrefs) {
  ChrfScore s;
  s.score = chrf_f(stats, opt.beta);
  s.signature = "nrefs:" + nrefs_str(nrefs) + "|case:" + (opt.lowercase ? "lc" : "mixed") +
                "|eff:yes|nc:" + std::to_string(opt.char_order) + "|nw:0|space:" + (opt.whitespace ? "yes" : "no") +
                "|version:" + kVersion;
  s.beta = opt.beta;
  return s;
}

ChrfScore corpus_chrf(const std::vector<std::string>& hyps, const std::vector<std::vector<std::string>>& refs,
                      const ChrfOptions& opt) {
  check_corpus(hyps.size(), refs, "chrF");
  ChrfStats total;
  std::set<size_t> nrefs;
  for (size_t i = 0; i < hyps.size(); ++i) {
    std::vector<std::string> sent_refs;
    for (const std::string* r : sentence_refs(refs, i, "chrF")) sent_refs.push_back(*r);
    nrefs.insert(sent_refs.size());
    total += chrf_sentence_stats(hyps[i], sent_refs, opt);
  }
  return chrf_from_stats(total, opt, nrefs.size() == 1 ? static_cast<int>(*nrefs.begin()) : -1);
}

std::string ChrfScore::str() const { return "chrF" + fmt("%g", beta) + " = " + fmt("%.2f", score); }

}  // namespace twin
