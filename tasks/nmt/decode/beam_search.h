// Beam search and greedy decoding over a model-agnostic scorer (the NMT decoder, or an ensemble of them).
//
// Conventions followed (Nematus' beam search, Sennrich et al. 2017; Marian's, Junczys-Dowmunt et al. 2018):
//  - Hypotheses are flat arrays of nodes (word, back-pointer, accumulated log-prob), traced back at the end.
//  - Per sentence at most `beam` live hypotheses. Each step expands every live one by every token and keeps the
//    best `beam - finished_so_far` candidates by accumulated log-prob (Nematus' shrinking beam); a kept
//    candidate ending in EOS is finished. Normalisation is applied only to the final ranking, as in Nematus.
//  - A sentence stops when it has `beam` finished hypotheses, no live one, or after max_len steps,
//    max_len = floor(max_len_a * source_length + max_len_b). Every step emits one token, EOS included, so a
//    hypothesis never has more than max_len tokens: the live ones left after step max_len are returned with
//    max_len tokens and finished = false, ranked together with the finished ones.
//  - Length for normalisation counts the EOS token of finished hypotheses. "length": logprob / length
//    (the ATR paper's RNNSearch setup, Nematus' --normalize); "gnmt": logprob / ((5 + length) / 6)^alpha
//    (Wu et al. 2016, Eq. 14, without the coverage penalty).
//  - Candidates with log-prob -inf (tokens the model forbids) are never kept, so a sentence can have fewer
//    than nbest hypotheses; a row whose log-probs are all -inf or contain NaN is an error.
//  - Ties are broken by lower token id, then by the parent's rank within its sentence, so results never
//    depend on which other sentences share the batch. Accumulated scores are doubles.
//  - Sentences that have stopped produce no more rows.
#pragma once
#include <string>
#include <vector>

#include "base/names.h"
#include "base/real.h"

namespace twin::nmt {

// What decoding asks of a model (or an ensemble of models) for a batch of source sentences. The scorer holds
// the encoder output and one decoder state per live row ("hypothesis"). It only moves forward: one scorer
// serves one search.
class StepScorer {
 public:
  virtual ~StepScorer() = default;
  virtual int vocab_size() const = 0;
  virtual int num_sentences() const = 0;        // source sentences in this batch
  virtual int source_length(int s) const = 0;   // tokens of sentence s (without EOS), for the max-length rule
  // Advances hypotheses by one token and returns log p(next token | prefix, source) as [R, V], R = parent.size().
  // Row r continues the decoder state in row parent[r] of the previous call, after emitting prev[r].
  // At the first call after construction the previous rows are the sentences: parent[r] is a sentence index
  // (0..num_sentences-1) and prev[r] is BOS. Rows of different sentences may be mixed in any order; the same
  // parent may appear in several rows (a hypothesis with several kept continuations).
  virtual Mat step(const std::vector<int>& parent, const Ids& prev) = 0;
  // Attention weights of the rows of the last step(), [R, max source length incl. EOS], or nullptr if the
  // model has none. Used to dump soft alignments.
  virtual const Mat* last_attention() const { return nullptr; }
};

// How the final ranking normalises a hypothesis' log-prob (the top of this file); key "normalize".
enum class LengthNorm { kNone, kLength, kGnmt };
inline constexpr NameTable<LengthNorm, 3> kLengthNormNames{{{LengthNorm::kNone, "none"},
                                                           {LengthNorm::kLength, "length"},
                                                           {LengthNorm::kGnmt, "gnmt"}}};

struct SearchConfig {
  int beam = 10;                       // 1 = greedy
  int nbest = 1;                       // hypotheses returned per sentence (<= beam)
  LengthNorm normalize = LengthNorm::kLength;
  double alpha = 0.6;                  // for "gnmt"
  double max_len_a = 2.0, max_len_b = 10.0;   // at most floor(a * source_length + b) target tokens, EOS excluded
  int bos = 1, eos = 2;
  bool keep_attention = false;         // store per-token attention rows in the hypotheses
  // EOS never chosen: every hypothesis runs to its max length, so every model advances the same rows (speed
  // nmt's decoder speed; not a config key). Applied by translate_corpus to the scores it passes on.
  bool fixed_length = false;
};

struct Hypothesis {
  Ids tokens;            // without BOS and EOS
  double logprob = 0;    // sum of log-probs including EOS (if it ended with EOS)
  double score = 0;      // after normalisation; n-best lists are sorted by it, best first
  bool finished = true;  // false: stopped by the max-length rule without EOS
  // Per target token (incl. EOS), when keep_attention: the attention of the step that chose the token,
  // cut to the sentence's source_length + 1 positions (its tokens and EOS).
  std::vector<std::vector<float>> attention;
};

// One n-best list per sentence of the scorer's batch, best first (at most cfg.nbest entries, at least one).
std::vector<std::vector<Hypothesis>> beam_search(StepScorer& scorer, const SearchConfig& cfg);
// Plain argmax decoding (cfg.beam and cfg.nbest are ignored), one hypothesis per sentence; the same result
// as beam_search with beam = 1, by a simpler path.
std::vector<Hypothesis> greedy_search(StepScorer& scorer, const SearchConfig& cfg);

// Pieces of the rules above, shared with callers and tests.
void check_search_config(const SearchConfig& cfg, int vocab_size);   // throws twin::Error naming the field
int max_target_length(const SearchConfig& cfg, int source_length);    // floor(a * len + b), checked > 0
double normalized_score(const SearchConfig& cfg, double logprob, int length);   // length incl. EOS

}  // namespace twin::nmt
