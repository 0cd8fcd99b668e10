#include "snli_task.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "eval/labels.h"
#include "snli_predict.h"
#include "nn/text_embeddings.h"
#include "ops/ops.h"
#include "train/run_dir.h"

namespace twin::snli {

SnliTask::SnliTask(JsonReader& root, const RunConfig& run, const TrainConfig&, const CliArgs&)
    : ExampleListTask(root, run) {
  read_splits(data_.train, data_.dev, data_.test, [this](const std::string& f) { return read_split(data_, f); });
  vocab_ = build_vocab(train_, data_);
  build_model(vocab_);
  glove_found_ = load_text_embeddings(data_, vocab_, model_->embedding());
  std::fprintf(stderr, "snli: %s (%s): %zu / %zu / %zu pairs, vocabulary %d%s\n", data_.dir.c_str(),
               data_.protocol.c_str(), train_.size(), dev_.size(), test_.size(), vocab_.size(),
               data_.embeddings.empty() ? ", random embeddings"
                                        : (", " + std::to_string(glove_found_) + " rows from " + data_.embeddings).c_str());
}

SummedLoss SnliTask::summed_loss(Graph& g, const std::vector<int>& ids, Rng& rng) {
  const SnliBatch b = make_batch(train_, ids, vocab_);
  return {model_->loss(g, b.premise, b.hypothesis, b.labels, rng), static_cast<double>(ids.size())};   // summed over pairs
}

ScoredLabels SnliTask::score(const std::vector<Pair>& data) const {
  Stopwatch sw;
  const std::vector<LabelProbability> best = label_pairs(*model_, vocab_, data, data_.eval_options());
  ScoredLabels s = score_predictions(best, data, kNumLabels, "pairs", sw.seconds());
  nlohmann::json per_label = nlohmann::json::object();   // by name, as SNLI's papers report them
  for (int l = 0; l < kNumLabels; ++l)
    per_label[label_name(l)] = s.metrics["per_label_accuracy"][static_cast<size_t>(l)];
  s.metrics["per_label_accuracy"] = per_label;
  return s;
}

void SnliTask::finish(const std::string& run_dir, nlohmann::json& summary) {
  // The outputs the dev and test accuracies were computed from, one label name per pair in data order.
  std::vector<std::string> names;
  for (int l = 0; l < kNumLabels; ++l) names.emplace_back(label_name(l));
  const std::string dir = RunDir::join(run_dir, "predictions");
  std::filesystem::create_directories(dir);
  write_text_atomic(RunDir::join(dir, "dev.txt"), label_lines(last_dev_.pred, names));
  write_text_atomic(RunDir::join(dir, "test.txt"), label_lines(last_test_.pred, names));
  summary["predictions"] = {{"dev", "predictions/dev.txt"}, {"test", "predictions/test.txt"}};
  summary["train_accuracy"] = score(train_).metrics.at("accuracy");   // of the evaluated model (Table 6 reports it)
  summary["protocol"] = data_.protocol;
  keep_vocabs(vocab_, run_dir);   // what `snli predict <run>` reads
  summary["embeddings"] = data_.embeddings.empty() ? nlohmann::json("random") : nlohmann::json(data_.embeddings);
  summary["embedding_rows_from_file"] = glove_found_;
  summary["params_without_embeddings"] =
      static_cast<long>(store_.total_size()) - static_cast<long>(model_->embeddings().value.size());
}

}  // namespace twin::snli
