// The reading-comprehension task for the shared trainer (core/train/trainer.h): R-Net (rc_model.h) on SQuAD as
// data_prep/squad.py prepares it, batches of data.batch_size questions (R-Net's 64), the pointer network's two
// cross-entropies averaged over a batch's questions, the official EM / F1 (core/eval/squad_eval) at every
// evaluation, F1 the primary metric.
// The splits' roles (rc_data.h): the trainer's "dev", which selects the best model, early-stops and drives a
// plateau schedule, is data.heldout (whole training articles); its "test", reported, is data.dev (SQuAD v1.1
// dev, official ids). The LRN code evaluates on SQuAD dev for its learning-rate halving and reports its last
// checkpoint on the same file; `--set data.heldout=dev` selects on SQuAD dev as it does.
// Each split is scored over every question of its file (data.max_eval_questions: of its first N), a question
// dropped by the test limits scoring 0, as the official script scores a question without a prediction. At the end
// the run keeps both splits' predictions in the official format, predictions/<split name>.json ({id: answer}),
// listed in summary.json, so that evaluate-v1.1.py, tools/squad_eval.py and `make rescore` re-score them.
// Word vectors: data.embeddings (GloVe format) gives the vocabulary and its vectors (fixed with
// model.freeze_words), loaded into the model here.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rc_data.h"
#include "rc_model.h"
#include "rc_predict.h"
#include "rc_predictions.h"
#include "rc_vocab.h"
#include "train/cli.h"
#include "train/example_task.h"

namespace twin::rc {

// A split's predictions and their official scores (SquadScore::to_json's counts, without the id lists).
struct RcScored {
  Predictions predictions;
  nlohmann::json metrics;
};

class RcTask : public ExampleListTask<RcTask, RcParts, RcExample, RcScored, example_length> {
 public:
  RcTask(JsonReader& root, const RunConfig& run, const TrainConfig& train, const CliArgs& args);
  static std::vector<CommandMode> modes() { return {as_mode(kPredictMode)}; }
  static constexpr const char *kBatchUnits = "questions", *kPrimary = "f1";

  SummedLoss summed_loss(Graph& g, const std::vector<int>& ids, Rng& rng);
  // dev_ (data.heldout) or test_ (data.dev): the predictions and the official EM / F1 over the split's questions.
  RcScored score(const std::vector<RcExample>& data) const;
  void finish(const std::string& run_dir, nlohmann::json& summary);

 private:
  const RcSplit& split_of(const std::vector<RcExample>& data) const;

  RcVocabs vocabs_;
  RcSplit heldout_, reported_;   // every question of data.heldout / data.dev (their examples moved to dev_ / test_)
  long vectors_found_ = 0;       // word vectors loaded from data.embeddings
};

}  // namespace twin::rc
