// The SNLI task for the shared trainer (core/train/trainer.h): batches of 128 pairs, cross-entropy averaged
// over a batch's pairs, dev accuracy selecting the best model (the ATR paper's A.2.2 recipe), and test
// accuracy with per-label accuracy and the confusion matrix in summary.json. Optional GloVe-format vectors
// initialise the embedding rows they cover (frozen with model.freeze_embeddings).
#pragma once
#include <memory>

#include "snli_data.h"
#include "snli_model.h"
#include "train/cli.h"
#include "train/example_task.h"

namespace twin::snli {

class SnliTask : public ExampleTask<SnliTask, SnliDataConfig, SnliModelConfig> {
 public:
  SnliTask(JsonReader& root, const RunConfig& run, const TrainConfig& train, const CliArgs& args);
  // The task's own keys (data.*, model.*) for --print-keys and experiments/KEYS.md.
  static std::vector<KeyDoc> keys() { return data_model_keys(snli_data_table(), snli_model_table()); }
  static std::string help_modes() {
    return "Modes:\n"
           "  snli predict <run> [--input FILE] [--output FILE] [--batch N] [--threads N]\n"
           "               label premise<TAB>hypothesis pairs (one per line) with a trained run's model.best.bin;\n"
           "               \"label<TAB>probability\" per pair out\n";
  }
  // train.batch_size is the LM's; this task batches by data.batch_size (pairs per batch).
  static UnreadKeys unread_train_keys() { return {{"batch_size", "the snli task batches by data.batch_size (pairs per batch)"}}; }

  size_t train_size() const { return train_.size(); }
  int train_length(size_t id) const { return static_cast<int>(pair_length(train_[id])); }
  BatchingOptions train_batching() const { return data_.train_options(); }
  SummedLoss summed_loss(Graph& g, const std::vector<int>& ids, Rng& rng);
  Metrics evaluate(Split split);
  void finish(const std::string& run_dir, nlohmann::json& summary);

  // Predicted label per pair of `data` with the current parameters.
  std::vector<int> predict(const std::vector<Pair>& data) const;

 private:
  // Scores `data` and keeps its predictions in *pred when given.
  nlohmann::json score(const std::vector<Pair>& data, std::vector<int>* pred = nullptr) const;

  std::vector<Pair> train_, dev_, test_;
  Vocab vocab_;
  long glove_found_ = 0;
  std::unique_ptr<SnliModel> model_;
  std::vector<int> dev_pred_, test_pred_;   // of the last evaluate(): written to predictions/ by finish()
};

}  // namespace twin::snli
