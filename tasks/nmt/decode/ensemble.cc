// log sum_i w_i exp(l_i), element-wise, in double with the max factored out (log-sum-exp). With one model
// (w = 1) it is exactly m + log(1) = m: the model's own log-probs, so no special case is needed.
#include "decode/ensemble.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "base/check.h"

namespace twin::nmt {

EnsembleScorer::EnsembleScorer(std::vector<StepScorer*> models, std::vector<double> weights)
    : models_(std::move(models)), weights_(std::move(weights)) {
  TW_CHECK(!models_.empty(), "ensemble: no models");
  for (std::size_t i = 0; i < models_.size(); ++i) {
    const StepScorer* m = models_[i];
    TW_CHECK(m != nullptr, "ensemble: model ", i, " is null");
    TW_CHECK(m->vocab_size() == vocab_size(), "ensemble: model ", i, " has vocab_size ", m->vocab_size(),
             ", model 0 has ", vocab_size());
    TW_CHECK(m->num_sentences() == num_sentences(), "ensemble: model ", i, " has ", m->num_sentences(),
             " sentences, model 0 has ", num_sentences());
    for (int s = 0; s < num_sentences(); ++s)
      TW_CHECK(m->source_length(s) == source_length(s), "ensemble: model ", i, " gives source_length(", s, ") = ",
               m->source_length(s), ", model 0 gives ", source_length(s));
  }
  if (weights_.empty()) weights_.assign(models_.size(), 1.0);
  TW_CHECK(weights_.size() == models_.size(), "ensemble: ", weights_.size(), " weights for ", models_.size(),
           " models");
  double sum = 0;
  for (double w : weights_) {
    TW_CHECK(std::isfinite(w) && w >= 0, "ensemble: weights must be finite and >= 0 (got ", w, ")");
    sum += w;
  }
  TW_CHECK(sum > 0, "ensemble: the weights sum to 0");
  for (double& w : weights_) w /= sum;
}

Mat EnsembleScorer::step(const std::vector<int>& parent, const Ids& prev) {
  std::vector<Mat> lp;
  lp.reserve(models_.size());
  for (std::size_t i = 0; i < models_.size(); ++i) {
    lp.push_back(models_[i]->step(parent, prev));
    TW_CHECK(lp[i].rows() == static_cast<Index>(parent.size()) && lp[i].cols() == vocab_size(), "ensemble: model ",
             i, " returned ", shape_str(lp[i]), ", expected [", parent.size(), "x", vocab_size(), "]");
  }
  Mat out(lp[0].rows(), lp[0].cols());
  for (Index r = 0; r < out.rows(); ++r) {
    for (Index v = 0; v < out.cols(); ++v) {
      // The max over models with positive weight (a zero-weight model's term could underflow the others').
      double m = -std::numeric_limits<double>::infinity();
      bool nan = false;
      for (std::size_t i = 0; i < lp.size(); ++i) {
        const double x = lp[i](r, v);
        nan = nan || std::isnan(x);
        if (weights_[i] > 0) m = std::max(m, x);
      }
      if (nan || !std::isfinite(m)) {   // NaN, +inf or all -inf: passed on for the search to report or skip
        out(r, v) = nan ? std::numeric_limits<Real>::quiet_NaN() : static_cast<Real>(m);
        continue;
      }
      double sum = 0;
      for (std::size_t i = 0; i < lp.size(); ++i)
        if (weights_[i] > 0) sum += weights_[i] * std::exp(static_cast<double>(lp[i](r, v)) - m);
      out(r, v) = static_cast<Real>(m + std::log(sum));
    }
  }
  return out;
}

}  // namespace twin::nmt
