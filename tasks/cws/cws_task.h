// The CWS task for the shared trainer (core/train/trainer.h): batches of 128 sentences, the objective averaged
// over a batch's sentences, dev F1 (SIGHAN definitions, core/eval/segmentation.h) selecting the best model, and at the end
// the segmented dev and test files in the bakeoff format (so the official `score` script can be run on them)
// with P/R/F1, OOV and IV recall in summary.json.
#pragma once
#include <memory>
#include <unordered_set>

#include "cws_data.h"
#include "cws_model.h"
#include "train/cli.h"
#include "train/example_task.h"

namespace twin::cws {

class CwsTask : public ExampleTask<CwsTask, CwsDataConfig, CwsModelConfig> {
 public:
  CwsTask(JsonReader& root, const RunConfig& run, const TrainConfig& train, const CliArgs& args);
  // The task's own keys (data.*, model.*) for --print-keys and experiments/KEYS.md.
  static std::vector<KeyDoc> keys() { return data_model_keys(cws_data_table(), cws_model_table()); }
  static std::string help_modes() {
    return "Modes:\n"
           "  cws segment <run> [--input FILE] [--output FILE] [--batch N] [--threads N]\n"
           "                    segment raw text (one sentence per line) with a trained run's model.best.bin\n";
  }
  // train.batch_size is the LM's; this task batches by data.batch_size (sentences per batch).
  static UnreadKeys unread_train_keys() { return {{"batch_size", "the cws task batches by data.batch_size (sentences per batch)"}}; }

  size_t train_size() const { return train_.size(); }
  int train_length(size_t id) const { return static_cast<int>(sentence_length(train_[id])); }
  BatchingOptions train_batching() const { return data_.train_options(); }
  SummedLoss summed_loss(Graph& g, const std::vector<int>& ids, Rng& rng);
  // The progress line names the objective: "hinge" (max-margin, no perplexity) or "nll".
  const char* progress_loss_name() const { return mcfg_.objective == CrfObjective::kNll ? "nll" : "hinge"; }
  Metrics evaluate(Split split);
  void finish(const std::string& run_dir, nlohmann::json& summary);

  // Segments `data` with the current parameters: one word list per sentence, and the seconds it took.
  std::vector<std::vector<std::string>> segment(const std::vector<Sentence>& data, double* seconds = nullptr) const;
  const std::vector<Sentence>& test_data() const { return test_; }

 private:
  struct Scored {
    std::vector<std::vector<std::string>> words;
    nlohmann::json metrics;
  };
  Scored score(const std::vector<Sentence>& data) const;

  std::vector<Sentence> train_, dev_, test_;
  CwsVocab vocab_;
  std::unordered_set<std::string> train_words_;
  std::unique_ptr<CwsModel> model_;
  Scored last_dev_, last_test_;
};

}  // namespace twin::cws
