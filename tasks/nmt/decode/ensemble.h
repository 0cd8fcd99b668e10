// Ensemble decoding: several models scoring the same batch, combined as log of the weighted mean of their
// probabilities, log sum_i w_i p_i (Nematus' and Marian's ensembles average probabilities, not log-probs).
// A one-model ensemble returns exactly that model's log-probs.
#pragma once
#include <vector>

#include "decode/beam_search.h"

namespace twin::nmt {

class EnsembleScorer : public StepScorer {
 public:
  // models: not owned, same vocabulary and batch (checked). weights: empty = uniform; otherwise one per
  // model, >= 0 with a positive sum, normalised to sum 1.
  explicit EnsembleScorer(std::vector<StepScorer*> models, std::vector<double> weights = {});

  int vocab_size() const override { return models_.front()->vocab_size(); }
  int num_sentences() const override { return models_.front()->num_sentences(); }
  int source_length(int s) const override { return models_.front()->source_length(s); }
  Mat step(const std::vector<int>& parent, const Ids& prev) override;
  // The first model's (the alignments of an ensemble are those of its first member).
  const Mat* last_attention() const override { return models_.front()->last_attention(); }

 private:
  std::vector<StepScorer*> models_;
  std::vector<double> weights_;
};

}  // namespace twin::nmt
