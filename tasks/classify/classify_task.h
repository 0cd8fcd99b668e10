// The sentence classification task for the shared trainer (core/train/trainer.h): batches of sentences,
// cross-entropy averaged over a batch's sentences, dev accuracy selecting the best model (early stopping with
// train.patience), and test accuracy with per-label accuracy and the confusion matrix in summary.json, beside
// train accuracy, the parameter count with and without the embeddings and training sentences/s and tokens/s.
// Optional GloVe-format vectors initialise the embedding rows they cover (frozen with model.freeze_embeddings).
// Documents: with a length policy (data.max_length, data.batch_tokens, data.eval_batch_tokens) summary.json
// also has "length_policy": what was kept, how many examples of each split were cut, and what the training
// batches held (padding share, the largest batch: the memory high-water mark, peak_rss_mb, comes from it).
//
// Flags (after the final evaluation of the best model; also with --eval-only on a finished run):
//   --memory N        the memory-weight analysis (classify_memory.h; classify_memory_report.h chooses the sentences
//                     and writes memory.json) of the first test sentence with the word "great" (at most 25
//                     tokens; the LRN paper's example word), preferring one whose gold label is in the upper
//                     (positive) half of the labels, then the first N test sentences
//   --memory-file F   ... of the sentences of F instead (one tokenized sentence per line, no label), followed by
//                     the N test sentences when --memory is given too
// Both write <run>/memory.json and need a unidirectional ATR or LRN encoder (checked before training starts).
#pragma once
#include <memory>

#include "classify_data.h"
#include "classify_memory_report.h"
#include "classify_model.h"
#include "classify_predict.h"
#include "eval/labels.h"
#include "train/cli.h"
#include "train/example_task.h"

namespace twin::classify {

class ClassifyTask : public ExampleListTask<ClassifyTask, ClassifyParts, Example, ScoredLabels, example_length> {
 public:
  ClassifyTask(JsonReader& root, const RunConfig& run, const TrainConfig& train, const CliArgs& args);
  static std::vector<OptionSpec> flags() {
    return {{"--memory", "N", "memory.json: the memory weights of the first test sentence with \"great\" and of the\n"
                              "first N test sentences (a unidirectional ATR or LRN encoder)"},
            {"--memory-file", "FILE", "... of the sentences of FILE (one per line) first"}};
  }
  static std::vector<CommandMode> modes() { return {as_mode(kPredictMode)}; }
  static constexpr const char *kBatchUnits = "sentences", *kPrimary = "accuracy";

  SummedLoss summed_loss(Graph& g, const std::vector<int>& ids, Rng& rng);
  // Accuracy and the predictions of `data`.
  ScoredLabels score(const std::vector<Example>& data) const;
  void finish(const std::string& run_dir, nlohmann::json& summary);

  // The --memory / --memory-file analysis of this task's model (classify_memory_report.h).
  MemorySubject memory_subject() const { return {*model_, mcfg_, vocab_, data_, test_, num_labels_}; }
  const MemoryRequest& memory_request() const { return memory_; }

  const ClassifyModel& model() const { return *model_; }
  const Vocab& vocab() const { return vocab_; }
  const std::vector<Example>& test_data() const { return test_; }
  // Any of data.max_length, data.batch_tokens, data.eval_batch_tokens set: summary.json reports the policy.
  bool has_length_policy() const;

 private:
  std::string train_path_;
  int num_labels_ = 0;
  Vocab vocab_;
  long glove_found_ = 0;
  MemoryRequest memory_;         // --memory N, --memory-file F
  PaddingStats trained_;         // the training batches of this process (tokens/s, the length-policy report)
};

}  // namespace twin::classify
