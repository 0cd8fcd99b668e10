// The PTB language-model task for the shared trainer: sequential BPTT windows with the hidden state carried
// across windows (reset at each epoch start), perplexity over whole splits with the state carried.
#pragma once
#include <memory>

#include "lm_data.h"
#include "lm_model.h"
#include "lm_perplexity.h"
#include "lm_score.h"
#include "train/cli.h"
#include "train/dist.h"
#include "train/example_task.h"

namespace twin::lm {

class LmTask : public TaskDefaults, public TaskOnParts<LmParts> {
 public:
  LmTask(JsonReader& root, const RunConfig& run, const TrainConfig& train, const CliArgs& args);
  static std::vector<OptionSpec> flags() {
    return {{"--dump-gates", "N", "gates.json: the top layer's gate statistics on the test set and the weights g_k\n"
                                  "of the first N test sentences"}};
  }
  static std::vector<CommandMode> modes() { return {as_mode(kScoreMode)}; }

  size_t begin_epoch(int epoch, Rng& order_rng);
  LossOut loss(Graph& g, size_t batch, Rng& rng);
  Metrics evaluate(Split split);
  NamedMats save_state() const;
  void load_state(const NamedMats& s);
  // Data-parallel (core/train/dist.h): this rank trains the batch columns (streams) [begin, end) of each window
  // and carries their state; the loss keeps the full batch's denominator.
  void set_shard(const dist::Shard& s);
  void finish(const std::string& run_dir, nlohmann::json& summary);
  // At every training log point (core/train/trainer.h): per layer, the mean and the maximum of |h| of the
  // state carried out of the last window (and of the memory c for cells that have one). A twin-gate cell with
  // identity output can grow it without bound (the ATR and LRN READMEs); a growth of 100x or more over its
  // first logged value in this process is also printed as a warning, long before the loss turns to NaN.
  nlohmann::json log_extras();

  const LmCorpus& corpus() const { return corpus_; }
  const LmModel& model() const { return *model_; }

 private:
  int batch_size_;
  int dump_gates_ = 0;
  LmCorpus corpus_;
  IdMat train_data_;      // [L, B]
  LmState state_;         // carried across training windows (this rank's streams)
  std::vector<double> first_state_max_;      // per layer, at the first log point of this process
  std::vector<double> warned_state_max_;     // per layer, the size last warned about
  std::vector<double> dev_nll_, test_nll_;   // per stream position, of the last evaluate(): logprobs/ in finish()
  Index col0_ = 0, col1_ = 0;   // this rank's streams [col0_, col1_) of the batch; all of them by default
};

}  // namespace twin::lm
