// The CWS task for the shared trainer (core/train/trainer.h): batches of 128 sentences, the objective averaged
// over a batch's sentences, dev F1 (SIGHAN definitions, core/eval/segmentation.h) selecting the best model, and at the end
// the segmented dev and test files in the bakeoff format (so the official `score` script can be run on them)
// with P/R/F1, OOV and IV recall in summary.json.
#pragma once
#include <memory>
#include <unordered_set>

#include "cws_data.h"
#include "cws_model.h"
#include "cws_segment.h"
#include "train/cli.h"
#include "train/example_task.h"

namespace twin::cws {

// A split's segmentation and its scores (P/R/F1, OOV and IV recall, decoding speed).
struct CwsScored {
  std::vector<std::vector<std::string>> words;
  nlohmann::json metrics;
};

class CwsTask : public ExampleListTask<CwsTask, CwsParts, Sentence, CwsScored, sentence_length> {
 public:
  CwsTask(JsonReader& root, const RunConfig& run, const TrainConfig& train, const CliArgs& args);
  static std::vector<CommandMode> modes() { return {as_mode(kSegmentMode)}; }
  static constexpr const char *kBatchUnits = "sentences", *kPrimary = "f1";

  SummedLoss summed_loss(Graph& g, const std::vector<int>& ids, Rng& rng);
  // The progress line names the objective: "hinge" (max-margin, no perplexity) or "nll".
  const char* progress_loss_name() const { return mcfg_.objective == CrfObjective::kNll ? "nll" : "hinge"; }
  CwsScored score(const std::vector<Sentence>& data) const;
  void finish(const std::string& run_dir, nlohmann::json& summary);

  // Segments `data` with the current parameters: one word list per sentence, and the seconds it took.
  std::vector<std::vector<std::string>> segment(const std::vector<Sentence>& data, double* seconds = nullptr) const;
  const std::vector<Sentence>& test_data() const { return test_; }

 private:
  CwsVocab vocab_;
  std::unordered_set<std::string> train_words_;
};

}  // namespace twin::cws
