// Scoring a token stream with a trained LM (what LmTask's evaluation and its logprobs/ files come from): the
// perplexity with the state carried across BPTT windows, and the per-sentence log-probability lines.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "lm_data.h"
#include "lm_model.h"

namespace twin::lm {

// Perplexity of a token stream with the state carried across windows (inference mode).
struct PplResult {
  double nll = 0;     // summed negative log-likelihood (nats)
  double tokens = 0;
  double ppl() const { return std::exp(nll / tokens); }
};
// position_nll: when given, the sum comes from model.token_nll in double, and (*position_nll)[i] is -log p of
// stream[i] (NaN where the batch layout predicts nothing: the first token of each column and the tail).
PplResult stream_perplexity(const LmModel& model, const Ids& stream, int batch, int bptt,
                            std::vector<double>* position_nll = nullptr);
// One "logprob<TAB>tokens" line per sentence (a line of the split, ended by its <eos>): the sentence's summed
// log-probability (natural log, %.17g) over the positions that were scored, and how many were.
std::string sentence_logprob_lines(const Ids& stream, const std::vector<double>& position_nll, std::int32_t eos);

}  // namespace twin::lm
