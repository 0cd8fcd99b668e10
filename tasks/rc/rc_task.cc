#include "rc_task.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <utility>

#include "base/check.h"
#include "base/threads.h"
#include "train/run_dir.h"

namespace twin::rc {

RcTask::RcTask(JsonReader& root, const RunConfig& run, const TrainConfig&, const CliArgs&)
    : ExampleListTask(root, run) {
  RcSplit train = read_split(data_, data_.train, /*training=*/true);
  TW_CHECK(!train.examples.empty(), train.path, ": no training question within data.passage_limit (",
           data_.passage_limit, ") and data.question_limit (", data_.question_limit, ")");
  heldout_ = read_split(data_, data_.heldout, false);
  reported_ = read_split(data_, data_.dev, false);
  vocabs_ = build_vocabs(train.examples, data_);
  train_ = std::move(train.examples);
  dev_ = std::move(heldout_.examples);
  test_ = std::move(reported_.examples);
  for (std::vector<RcExample>* split : {&train_, &dev_, &test_}) encode(*split, vocabs_);
  build_model(vocabs_);
  if (!data_.embeddings.empty()) {
    // The vocabulary is the file's words (build_vocabs), so every vector line has its row; <pad> and <unk>
    // stay zero, as R-Net's.
    const PretrainedStats st = model_->word_embedding().load_glove(
        data_.embeddings, [this](const std::string& w) { return vocabs_.words.find(w); });
    vectors_found_ = static_cast<long>(st.found);
  }
  std::fprintf(stderr, "rc: %s (%s): %zu / %zu / %zu questions (train / %s / %s), %d words%s, %d characters\n",
               data_.dir.c_str(), data_.protocol.c_str(), train_.size(), dev_.size(), test_.size(),
               data_.heldout.c_str(), data_.dev.c_str(), vocabs_.words.size(),
               data_.embeddings.empty() ? " (training words, vectors trained from zero)"
                                        : (" (" + std::to_string(vectors_found_) + " vectors from " + data_.embeddings +
                                           (mcfg_.freeze_words ? ", fixed)" : ", trained)"))
                                              .c_str(),
               vocabs_.chars.size());
}

SummedLoss RcTask::summed_loss(Graph& g, const std::vector<int>& ids, Rng& rng) {
  const RcBatch b = make_batch(train_, ids, data_.char_limit, /*with_answers=*/true);
  return {model_->summed_loss(g, b, rng, /*train=*/true), static_cast<double>(ids.size())};   // summed over questions
}

const RcSplit& RcTask::split_of(const std::vector<RcExample>& data) const {
  // The base evaluates its lists dev_ and test_; the official score needs the file's questions beside them.
  TW_CHECK(&data == &dev_ || &data == &test_, "RcTask::score: not the heldout or dev list");
  return &data == &dev_ ? heldout_ : reported_;
}

RcScored RcTask::score(const std::vector<RcExample>& data) const {
  Stopwatch sw;
  RcScored s;
  s.predictions = predictions_of(data, answer_spans(*model_, data, data_.eval_options(), data_.char_limit));
  const double secs = sw.seconds();
  s.metrics = score_predictions(split_of(data), s.predictions).to_json();
  s.metrics.erase("first_missing");   // ids: prediction_report names them at the end of the run
  s.metrics.erase("first_unknown");
  s.metrics["decode_questions_s"] = static_cast<double>(data.size()) / std::max(secs, 1e-9);
  return s;
}

void RcTask::finish(const std::string& run_dir, nlohmann::json& summary) {
  const std::string dir = RunDir::join(run_dir, "predictions");
  std::filesystem::create_directories(dir);
  for (const auto& [role, split, scored] : {std::tuple{"dev", &heldout_, &last_dev_},
                                            std::tuple{"test", &reported_, &last_test_}}) {
    const std::string name = "predictions/" + (role == std::string("dev") ? data_.heldout : data_.dev) + ".json";
    write_predictions(RunDir::join(run_dir, name), scored->predictions);
    summary["predictions"][role] = name;
    std::fprintf(stderr, "rc: %s\n", prediction_report(name, score_predictions(*split, scored->predictions)).c_str());
  }
  summary["splits"] = {{"dev", data_.heldout}, {"test", data_.dev}};   // the data files the summary's keys score
  summary["protocol"] = data_.protocol;
  summary["data_dir"] = data_.dir;
  summary["questions"] = {{"train", train_.size()}, {"dev", heldout_.questions.size()},
                          {"test", reported_.questions.size()}};
  summary["vocab"] = vocabs_.words.size();
  summary["char_vocab"] = vocabs_.chars.size();
  summary["embeddings"] = data_.embeddings.empty() ? nlohmann::json("none") : nlohmann::json(data_.embeddings);
  summary["embedding_rows_from_file"] = vectors_found_;
  // The LRN paper's parameter counts leave the fixed word vectors out: the trainable ones.
  long trainable = 0;
  for (const Param* p : store_.trainable()) trainable += static_cast<long>(p->value.size());
  summary["trainable_params"] = trainable;
  if (summary.contains("train_units_per_s")) summary["train_questions_per_s"] = summary["train_units_per_s"];
  keep_vocabs(vocabs_, run_dir);   // what `rc predict <run>` reads
}

}  // namespace twin::rc
