// The NER task for the shared trainer (core/train/trainer.h): batches of sentences, the objective averaged over
// a batch's sentences, dev entity F1 (conlleval's definitions, eval/spans.h) selecting the best model, and at
// the end the dev and test predictions in conlleval's input format (`token gold predicted`, BIO tags, a blank
// line between sentences) beside summary.json, so the official script (or `make rescore`) re-scores them.
#pragma once
#include <memory>

#include "ner_data.h"
#include "ner_model.h"
#include "ner_tag.h"
#include "train/cli.h"
#include "train/example_task.h"

namespace twin::ner {

// A split's gold and predicted BIO tags and their scores (conlleval's entity P/R/F1, decoding speed).
struct NerScored {
  std::vector<std::vector<std::string>> gold_bio, pred_bio;
  nlohmann::json metrics;
};

class NerTask : public ExampleListTask<NerTask, NerParts, Sentence, NerScored, sentence_length> {
 public:
  NerTask(JsonReader& root, const RunConfig& run, const TrainConfig& train, const CliArgs& args);
  static std::vector<CommandMode> modes() { return {as_mode(kTagMode)}; }
  static constexpr const char *kBatchUnits = "sentences", *kPrimary = "f1";

  BatchingOptions train_batching() const { return data_.text.train_options(); }
  SummedLoss summed_loss(Graph& g, const std::vector<int>& ids, Rng& rng);
  const char* progress_loss_name() const { return mcfg_.objective == CrfObjective::kNll ? "nll" : "hinge"; }
  NerScored score(const std::vector<Sentence>& data) const;
  void finish(const std::string& run_dir, nlohmann::json& summary);

  // Predicted tags (in data.scheme) for every sentence of `data`, with the seconds it took.
  std::vector<std::vector<std::string>> tag(const std::vector<Sentence>& data, double* seconds = nullptr) const;

 private:
  NerVocab vocab_;
  long embeddings_found_ = 0;
};

}  // namespace twin::ner
