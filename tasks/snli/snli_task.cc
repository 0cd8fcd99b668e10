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
    : ExampleTask(root, run, parse_snli_data, parse_snli_model) {
  train_ = read_split(data_, data_.train);
  dev_ = read_split(data_, data_.dev);
  test_ = read_split(data_, data_.test);
  vocab_ = build_vocab(train_, data_);
  model_ = std::make_unique<SnliModel>(mcfg_, vocab_.size(), store_);
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

std::vector<int> SnliTask::predict(const std::vector<Pair>& data) const {
  const std::vector<LabelProbability> best = label_pairs(*model_, vocab_, data, data_.eval_batch_size);
  std::vector<int> out(data.size());
  for (size_t i = 0; i < best.size(); ++i) out[i] = best[i].label;
  return out;
}

nlohmann::json SnliTask::score(const std::vector<Pair>& data, std::vector<int>* pred_out) const {
  Stopwatch sw;
  std::vector<int> pred = predict(data);
  const double secs = sw.seconds();
  std::vector<int> gold(data.size());
  for (size_t i = 0; i < data.size(); ++i) gold[i] = data[i].label;
  nlohmann::json s = score_labels(pred, gold, kNumLabels, "pairs");
  nlohmann::json per_label = nlohmann::json::object();   // by name, as SNLI's papers report them
  for (int l = 0; l < kNumLabels; ++l) per_label[label_name(l)] = s["per_label_accuracy"][static_cast<size_t>(l)];
  s["per_label_accuracy"] = per_label;
  s["pairs_per_s"] = static_cast<double>(data.size()) / std::max(secs, 1e-9);
  if (pred_out) *pred_out = std::move(pred);
  return s;
}

Metrics SnliTask::evaluate(Split split) {
  return metrics_from(split == Split::kDev ? score(dev_, &dev_pred_) : score(test_, &test_pred_), "accuracy",
                      /*higher_is_better=*/true);
}

void SnliTask::finish(const std::string& run_dir, nlohmann::json& summary) {
  // The outputs the dev and test accuracies were computed from, one label name per pair in data order.
  std::vector<std::string> names;
  for (int l = 0; l < kNumLabels; ++l) names.emplace_back(label_name(l));
  const std::string dir = RunDir::join(run_dir, "predictions");
  std::filesystem::create_directories(dir);
  write_text_atomic(RunDir::join(dir, "dev.txt"), label_lines(dev_pred_, names));
  write_text_atomic(RunDir::join(dir, "test.txt"), label_lines(test_pred_, names));
  summary["predictions"] = {{"dev", "predictions/dev.txt"}, {"test", "predictions/test.txt"}};
  summary["train_accuracy"] = score(train_).at("accuracy");   // of the evaluated model (Table 6 reports it)
  summary["protocol"] = data_.protocol;
  vocab_.save(RunDir::join(run_dir, "vocab.txt"));   // what `snli predict <run>` reads
  summary["embeddings"] = data_.embeddings.empty() ? nlohmann::json("random") : nlohmann::json(data_.embeddings);
  summary["embedding_rows_from_file"] = glove_found_;
  summary["params_without_embeddings"] =
      static_cast<long>(store_.total_size()) - static_cast<long>(model_->embeddings().value.size());
}

}  // namespace twin::snli
