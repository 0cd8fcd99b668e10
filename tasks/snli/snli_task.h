// The SNLI task for the shared trainer (core/train/trainer.h): batches of 128 pairs, cross-entropy averaged
// over a batch's pairs, dev accuracy selecting the best model (the ATR paper's A.2.2 recipe), and test
// accuracy with per-label accuracy and the confusion matrix in summary.json. Optional GloVe-format vectors
// initialise the embedding rows they cover (frozen with model.freeze_embeddings).
#pragma once
#include <memory>

#include "eval/labels.h"
#include "snli_data.h"
#include "snli_model.h"
#include "snli_predict.h"
#include "train/cli.h"
#include "train/example_task.h"

namespace twin::snli {

class SnliTask : public ExampleListTask<SnliTask, SnliParts, Pair, ScoredLabels, pair_length> {
 public:
  SnliTask(JsonReader& root, const RunConfig& run, const TrainConfig& train, const CliArgs& args);
  static std::vector<CommandMode> modes() { return {as_mode(kPredictMode)}; }
  static constexpr const char *kBatchUnits = "pairs", *kPrimary = "accuracy";

  SummedLoss summed_loss(Graph& g, const std::vector<int>& ids, Rng& rng);
  // Accuracy (with per-label accuracy) and the predictions of `data`.
  ScoredLabels score(const std::vector<Pair>& data) const;
  void finish(const std::string& run_dir, nlohmann::json& summary);

 private:
  Vocab vocab_;
  long glove_found_ = 0;
};

}  // namespace twin::snli
