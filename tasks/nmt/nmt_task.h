// The NMT task for the shared trainer (core/train/trainer.h): token-based batches of the training pairs,
// loss = summed cross-entropy / sentences (dl4mt/Nematus, the ATR authors' code base), dev BLEU as the metric
// that selects the best checkpoint and drives early stopping, and at the end translations of the test splits
// with tokenised BLEU and sacreBLEU written to the run folder.
#pragma once
#include <memory>

#include "corpus/nmt_data.h"
#include "decode/beam_search.h"
#include "decode/decode_config.h"
#include "decode/translator.h"
#include "model/nmt_model.h"
#include "train/cli.h"
#include "train/example_task.h"

namespace twin::nmt {

// Subword models of a data config (one joint model serves both sides).
struct SubwordPair {
  std::shared_ptr<Subword> src, tgt;
};
SubwordPair load_subwords(const NmtDataConfig& c);

// An NMT model's parts (train/trained_run.h): what NmtTask trains and `nmt translate` / `nmt average` load, built
// one way. Its modes take a run folder or any parameter file (model.avg.bin, snapshots/...), so the sections come
// from the config each parameter file embeds; the vocabularies are the subword models data.* names (nothing is
// kept beside the model).
struct NmtParts : RunPartsOf<SubwordPair, NmtModel, parse_nmt_data, parse_nmt_model, nmt_data_table, nmt_model_table> {
  static constexpr RunKind kRun{"nmt", "", "", /*param_files=*/true};
  static std::unique_ptr<Model> make(const ModelConfig& m, const Data&, const Vocabs& v, ParamStore& store) {
    return make_nmt_model(m, v.src->size(), v.tgt->size(), store);
  }
  static void save_vocabs(const Vocabs&, const Data&, const std::string&) {}
  static Vocabs load_vocabs(Data& d, const std::string&) { return load_subwords(d); }
};

class NmtTask : public ExampleTask<NmtTask, NmtParts> {
 public:
  NmtTask(JsonReader& root, const RunConfig& run, const TrainConfig& train, const CliArgs& args);
  // The task's own keys (data.*, model.*, decode.*) for --print-keys and experiments/KEYS.md.
  static std::vector<KeyDoc> keys() {
    std::vector<KeyDoc> out = ExampleTask::keys();
    append_section_keys(out, "decode", decode_table(), "beam search (decode.*)");
    return out;
  }
  // train.batch_size is the LM's; this task batches by data.batch_tokens and data.max_sentences.
  static UnreadKeys unread_train_keys() { return {{"batch_size", "the nmt task batches by data.batch_tokens and data.max_sentences"}}; }
  // translate, average (tasks/nmt/nmt_cli.h) and the moved bench.
  static std::vector<CommandMode> modes();

  nlohmann::json resolved() const;
  size_t train_size() const { return train_.src.size(); }
  int train_length(size_t id) const { return static_cast<int>(std::max(train_.src[id].size(), train_.tgt[id].size())); }
  BatchingOptions train_batching() const { return nmt_batching(data_); }
  SummedLoss summed_loss(Graph& g, const std::vector<int>& ids, Rng& rng);
  Metrics evaluate(Split split);
  void finish(const std::string& run_dir, nlohmann::json& summary);

  const NmtModel& model() const { return *model_; }
  const NmtDataConfig& resolved_data() const { return data_; }
  const DecodeConfig& decode_config() const { return dec_; }
  const SubwordPair& subwords() const { return sp_; }
  std::vector<std::string> test_sources(size_t n) const {   // the first n source lines of the test split
    return {test_.src_text.begin(), test_.src_text.begin() + static_cast<long>(std::min(n, test_.src_text.size()))};
  }

 private:
  struct Scored {
    std::vector<std::string> hyps, detok;   // detok: empty without raw references
    DecodeStats stats;
    nlohmann::json metrics;
  };
  Scored translate_and_score(const std::string& split, const Parallel& data, const SearchConfig& sc) const;
  double perplexity(const Parallel& data) const;

  DecodeConfig dec_;
  SubwordPair sp_;
  Parallel train_, dev_, test_;
  Scored last_test_, last_dev_;        // the final test and dev evaluations, written out by finish()
};

}  // namespace twin::nmt
