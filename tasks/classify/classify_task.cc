#include "classify_task.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "data/text.h"
#include "classify_predict.h"
#include "eval/labels.h"
#include "nn/text_embeddings.h"

namespace twin::classify {

ClassifyTask::ClassifyTask(JsonReader& root, const RunConfig& run, const TrainConfig&, const CliArgs& args)
    : ExampleListTask(root, run) {
  memory_ = parse_memory_request(args.task_flags, mcfg_);
  train_path_ = split_path(data_, data_.train);
  train_ = read_examples(train_path_, data_.num_labels, data_.lowercase, data_.length);
  num_labels_ = count_labels(train_, data_, train_path_);
  data_.num_labels = num_labels_;   // as counted (or given): what the model and config.resolved.json take
  dev_ = read_examples(split_path(data_, data_.dev), num_labels_, data_.lowercase, data_.length);
  test_ = read_examples(split_path(data_, data_.test), num_labels_, data_.lowercase, data_.length);
  vocab_ = build_vocab(train_, data_);
  build_model(vocab_);
  glove_found_ = load_text_embeddings(data_, vocab_, model_->embedding());
  std::fprintf(stderr, "classify: %s (%s): %zu / %zu / %zu sentences, %d labels, vocabulary %d%s\n",
               data_.dir.c_str(), data_.protocol.c_str(), train_.size(), dev_.size(), test_.size(), num_labels_,
               vocab_.size(),
               data_.embeddings.empty()
                   ? ", random embeddings"
                   : (", " + std::to_string(glove_found_) + " rows from " + data_.embeddings).c_str());
  if (data_.length.truncates())
    std::fprintf(stderr, "classify: length policy: %s; cut: train %ld, dev %ld, test %ld examples\n",
                 describe(data_.length).c_str(), truncation_counts(train_)["truncated"].get<long>(),
                 truncation_counts(dev_)["truncated"].get<long>(), truncation_counts(test_)["truncated"].get<long>());
}

bool ClassifyTask::has_length_policy() const {
  return data_.length.truncates() || data_.batch_tokens > 0 || data_.eval_batch_tokens > 0;
}

SummedLoss ClassifyTask::summed_loss(Graph& g, const std::vector<int>& ids, Rng& rng) {
  const ClassifyBatch b = make_batch(train_, ids, vocab_);
  trained_.add(b.text);
  return {model_->loss(g, b.text, b.labels, rng), static_cast<double>(ids.size())};   // [1,1] summed over sentences
}

ScoredLabels ClassifyTask::score(const std::vector<Example>& data) const {
  Stopwatch sw;
  const std::vector<LabelProbability> best = label_sentences(*model_, vocab_, data, data_.eval_options());
  return score_predictions(best, data, num_labels_, "sentences", sw.seconds());
}

void ClassifyTask::finish(const std::string& run_dir, nlohmann::json& summary) {
  // The outputs the dev and test accuracies were computed from: the predicted label (the data's integer
  // label) per sentence in data order.
  std::vector<std::string> names;
  for (int l = 0; l < num_labels_; ++l) names.push_back(std::to_string(l));
  const std::string dir = (std::filesystem::path(run_dir) / "predictions").string();
  std::filesystem::create_directories(dir);
  write_text_atomic(dir + "/dev.txt", label_lines(last_dev_.pred, names));
  write_text_atomic(dir + "/test.txt", label_lines(last_test_.pred, names));
  summary["predictions"] = {{"dev", "predictions/dev.txt"}, {"test", "predictions/test.txt"}};
  summary["train_accuracy"] = score(train_).metrics.at("accuracy");   // of the evaluated model
  summary["protocol"] = data_.protocol;
  summary["data_dir"] = data_.dir;
  summary["num_labels"] = num_labels_;
  summary["label_counts"] = {{"train", label_counts(train_, num_labels_)},
                             {"dev", label_counts(dev_, num_labels_)},
                             {"test", label_counts(test_, num_labels_)}};
  summary["vocab"] = vocab_.size();
  keep_vocabs(vocab_, run_dir);   // what `classify predict <run>` reads
  summary["embeddings"] = data_.embeddings.empty() ? nlohmann::json("random") : nlohmann::json(data_.embeddings);
  summary["embedding_rows_from_file"] = glove_found_;
  summary["params_without_embeddings"] =
      static_cast<long>(store_.total_size()) - static_cast<long>(model_->embeddings().value.size());
  summary["params_expected"] = ClassifyModel::expected_params(mcfg_, vocab_.size(), num_labels_);
  if (summary.contains("train_units_per_s")) {
    summary["train_sentences_per_s"] = summary["train_units_per_s"];
    // The trainer counts sentences; its rate times this process's tokens per trained sentence is tokens/s.
    if (trained_.examples > 0)
      summary["train_tokens_per_s"] =
          summary["train_units_per_s"].get<double>() * trained_.tokens / trained_.examples;
  }
  if (has_length_policy()) {
    nlohmann::json batches = {
        {"what", "the training batches of this process (a resumed run: since the resume)"},
        {"examples", static_cast<long>(trained_.examples)},
        {"tokens", static_cast<long>(trained_.tokens)},
        {"padded_positions", static_cast<long>(trained_.positions)},
        {"padding_share", trained_.padding_share()},
        {"largest", {{"examples", trained_.largest_examples}, {"steps", trained_.largest_steps},
                     {"positions", trained_.largest_examples * trained_.largest_steps}}}};
    summary["length_policy"] = {{"kept", describe(data_.length)},
                                {"splits", {{"train", truncation_counts(train_)},
                                            {"dev", truncation_counts(dev_)},
                                            {"test", truncation_counts(test_)}}},
                                {"train_batches", batches}};
  }
  if (memory_.wanted()) summary["memory"] = write_memory_json(memory_, memory_subject(), run_dir);
}

}  // namespace twin::classify
