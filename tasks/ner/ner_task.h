// The NER task for the shared trainer (core/train/trainer.h): batches of sentences, the objective averaged over
// a batch's sentences, dev entity F1 (conlleval's definitions, eval/spans.h) selecting the best model, and at
// the end the dev and test predictions in conlleval's input format (`token gold predicted`, BIO tags, a blank
// line between sentences) beside summary.json, so the official script (or `make rescore`) re-scores them.
#pragma once
#include <memory>

#include "ner_data.h"
#include "ner_model.h"
#include "train/cli.h"
#include "train/example_task.h"

namespace twin::ner {

class NerTask : public ExampleTask<NerTask, NerDataConfig, NerModelConfig> {
 public:
  NerTask(JsonReader& root, const RunConfig& run, const TrainConfig& train, const CliArgs& args);
  // The task's own keys (data.*, model.*) for --print-keys and experiments/KEYS.md.
  static std::vector<KeyDoc> keys() { return data_model_keys(ner_data_table(), ner_model_table()); }
  static std::string help_modes() {
    return "Modes:\n"
           "  ner tag <run> [--input FILE] [--output FILE] [--batch N] [--threads N]\n"
           "                tag tokenised text (one sentence per line) with a trained run's model.best.bin;\n"
           "                CoNLL lines out (token<TAB>BIO tag, a blank line after each sentence)\n";
  }
  // train.batch_size is the LM's; this task batches by data.batch_size (sentences per batch).
  static UnreadKeys unread_train_keys() { return {{"batch_size", "the ner task batches by data.batch_size (sentences per batch)"}}; }

  size_t train_size() const { return train_.size(); }
  int train_length(size_t id) const { return static_cast<int>(sentence_length(train_[id])); }
  BatchingOptions train_batching() const { return data_.text.train_options(); }
  SummedLoss summed_loss(Graph& g, const std::vector<int>& ids, Rng& rng);
  const char* progress_loss_name() const { return mcfg_.objective == CrfObjective::kNll ? "nll" : "hinge"; }
  Metrics evaluate(Split split);
  void finish(const std::string& run_dir, nlohmann::json& summary);

  // Predicted tags (in data.scheme) for every sentence of `data`, with the seconds it took.
  std::vector<std::vector<std::string>> tag(const std::vector<Sentence>& data, double* seconds = nullptr) const;

 private:
  struct Scored {
    std::vector<std::vector<std::string>> gold_bio, pred_bio;
    nlohmann::json metrics;
  };
  Scored score(const std::vector<Sentence>& data) const;

  std::vector<Sentence> train_, dev_, test_;
  NerVocab vocab_;
  std::unique_ptr<NerModel> model_;
  long embeddings_found_ = 0;
  Scored last_dev_, last_test_;
};

}  // namespace twin::ner
