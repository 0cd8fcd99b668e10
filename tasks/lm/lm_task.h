// The PTB language-model task for the shared trainer: sequential BPTT windows with the hidden state carried
// across windows (reset at each epoch start), perplexity over whole splits with the state carried.
#pragma once
#include <memory>

#include "lm_data.h"
#include "lm_model.h"
#include "train/cli.h"
#include "train/dist.h"

namespace twin::lm {

class LmTask {
 public:
  LmTask(JsonReader& root, const RunConfig& run, const TrainConfig& train, const CliArgs& args);
  static std::vector<std::string> flags() { return {"--dump-gates"}; }

  nlohmann::json resolved() const;
  ParamStore& params() { return store_; }
  size_t begin_epoch(int epoch, Rng& order_rng);
  LossOut loss(Graph& g, size_t batch, Rng& rng);
  Metrics evaluate(Split split);
  NamedMats save_state() const;
  void load_state(const NamedMats& s);
  // Data-parallel (core/train/dist.h): this rank trains the batch columns (streams) [begin, end) of each window
  // and carries their state; the loss keeps the full batch's denominator.
  void set_shard(const dist::Shard& s);
  void finish(const std::string& run_dir, nlohmann::json& summary);

  const LmCorpus& corpus() const { return corpus_; }
  const LmModel& model() const { return *model_; }

 private:
  LmDataConfig data_;
  LmModelConfig mcfg_;
  int batch_size_;
  int dump_gates_ = 0;
  LmCorpus corpus_;
  IdMat train_data_;      // [L, B]
  ParamStore store_;
  std::unique_ptr<LmModel> model_;
  LmState state_;         // carried across training windows (this rank's streams)
  Index col0_ = 0, col1_ = 0;   // this rank's streams [col0_, col1_) of the batch; all of them by default
};

// Perplexity of a token stream with the state carried across windows (inference mode).
struct PplResult {
  double nll = 0;     // summed negative log-likelihood (nats)
  double tokens = 0;
  double ppl() const { return std::exp(nll / tokens); }
};
PplResult stream_perplexity(const LmModel& model, const Ids& stream, int batch, int bptt);

}  // namespace twin::lm
