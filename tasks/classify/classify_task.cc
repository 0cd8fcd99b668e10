#include "classify_task.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "classify_memory.h"
#include "data/text.h"
#include "classify_predict.h"
#include "eval/labels.h"
#include "nn/text_embeddings.h"
#include "ops/ops.h"
#include "rnn/cell_factory.h"

namespace twin::classify {

namespace {

std::vector<double> row_of(const Mat& m, Index r, Index n) {
  std::vector<double> out(static_cast<size_t>(n));
  for (Index k = 0; k < n; ++k) out[static_cast<size_t>(k)] = static_cast<double>(m(r, k));
  return out;
}

}  // namespace

ClassifyTask::ClassifyTask(JsonReader& root, const RunConfig& run, const TrainConfig&, const CliArgs& args)
    : ExampleListTask(root, run) {
  if (auto it = args.task_flags.find("--memory"); it != args.task_flags.end())
    memory_n_ = static_cast<int>(parse_int_flag("--memory", it->second, 0, 1000000, "a number of test sentences"));
  if (auto it = args.task_flags.find("--memory-file"); it != args.task_flags.end()) {
    memory_file_ = it->second;
    TW_CHECK(std::filesystem::exists(memory_file_), "--memory-file: ", memory_file_, " not found");
  }
  if (memory_n_ >= 0 || !memory_file_.empty()) {
    const std::string why = memory_unsupported_reason(mcfg_);
    TW_CHECK(why.empty(), "--memory / --memory-file: ", why, " (this run's model: encoder ", name_of(kEncoderNames,
             mcfg_.encoder), ", cell ", mcfg_.cell.type, mcfg_.bidirectional ? ", bidirectional" : "", ")");
  }
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

void ClassifyTask::memory_sentences(std::vector<Example>& sentences, std::vector<std::string>& sources) const {
  sentences.clear();
  sources.clear();
  if (!memory_file_.empty()) {
    LineReader in(memory_file_);
    std::string line;
    while (in.next(line)) {
      Example e;
      e.tokens = split_whitespace(line);
      if (e.tokens.empty()) continue;   // blank lines separate nothing; skip them
      if (data_.lowercase) lowercase_ascii(e.tokens);
      e.dropped = truncate_tokens(e.tokens, data_.length);
      e.label = -1;
      sentences.push_back(std::move(e));
      sources.push_back("file:" + std::to_string(in.line_no()));
    }
    TW_CHECK(!sentences.empty(), "--memory-file ", memory_file_, ": no sentences");
  }
  if (memory_n_ < 0) return;
  std::vector<size_t> chosen;
  if (memory_file_.empty()) {   // the LRN paper's example word first: a positive sentence if there is one
    auto has_great = [&](size_t k) {
      const auto& t = test_[k].tokens;
      return t.size() <= 25 && std::find(t.begin(), t.end(), "great") != t.end();
    };
    auto positive = [&](size_t k) { return 2 * test_[k].label > num_labels_ - 1; };   // upper half of the labels
    for (int pass = 0; pass < 2 && chosen.empty(); ++pass)
      for (size_t k = 0; k < test_.size(); ++k)
        if (has_great(k) && (pass == 1 || positive(k))) {
          chosen.push_back(k);
          break;
        }
  }
  int others = 0;   // then the first N test sentences
  for (size_t k = 0; k < test_.size() && others < memory_n_; ++k)
    if (std::find(chosen.begin(), chosen.end(), k) == chosen.end()) {
      chosen.push_back(k);
      ++others;
    }
  for (size_t k : chosen) {
    sentences.push_back(test_[k]);
    sources.push_back(data_.test + ":" + std::to_string(k + 1));   // file line number
  }
}

nlohmann::json ClassifyTask::memory_report(const std::vector<Example>& sentences,
                                           const std::vector<std::string>& sources) const {
  TW_CHECK(sentences.size() == sources.size(), "memory_report: ", sentences.size(), " sentences, ", sources.size(),
           " sources");
  const bool exact = memory_is_exact(mcfg_);
  const std::string& cell = mcfg_.cell.type;
  const CellTraits traits = cell_traits(mcfg_.cell);
  nlohmann::json list = nlohmann::json::array();
  double max_rel = 0;
  Rng unused(0);
  for (size_t s = 0; s < sentences.size(); ++s) {
    const Example& e = sentences[s];
    const Ids ids = vocab_.encode(e.tokens);
    const MemoryWeights w = memory_weights(*model_, ids);
    max_rel = std::max(max_rel, w.rel_error);
    Graph g(Mode::kInfer);
    const Mat lg = model_->logits(g, pad_batch(std::vector<Ids>{ids}, kPadId), unused).val();   // [1, C]
    const Mat p = softmax_rows(lg);
    Index pred = 0;
    lg.row(0).maxCoeff(&pred);
    const Index T = static_cast<Index>(ids.size());
    nlohmann::json by_step = nlohmann::json::array();
    for (Index t = 0; t < T; ++t) by_step.push_back(row_of(w.weights_by_step, t, t + 1));   // k = 0..t
    nlohmann::json one = {{"source", sources[s]},
                          {"tokens", e.tokens},
                          {"unknown", nlohmann::json::array()},
                          {"label", e.label >= 0 ? nlohmann::json(e.label) : nlohmann::json(nullptr)},
                          {"predicted", pred},
                          {"probabilities", row_of(p, 0, p.cols())},
                          {"weights", w.weights},
                          {"weights_by_step", by_step},
                          {"input_gate", w.input_gate},
                          {"forget_gate", w.forget_gate},
                          {"final_state_norm", static_cast<double>(w.final_state.norm())},
                          {"rel_error", w.rel_error},
                          {"max_abs_error", w.max_abs_error}};
    for (Index k = 0; k < T; ++k)
      if (ids[static_cast<size_t>(k)] == vocab_.unk_id()) one["unknown"].push_back(k);
    if (s == 0) {   // every unit's weight for the first sentence only (keeps the file small)
      nlohmann::json units = nlohmann::json::array();
      for (Index k = 0; k < T; ++k) units.push_back(row_of(w.weights_units, k, w.weights_units.cols()));
      one["weights_units"] = units;
    }
    list.push_back(std::move(one));
  }
  nlohmann::json out = {
      {"cell", cell},
      {"output", mcfg_.cell.output == CellOutput::kDefault
                     ? std::string(name_of(kCellOutputNames, traits.output)) + " (default)"
                     : std::string(name_of(kCellOutputNames, mcfg_.cell.output))},
      {"direction", "forward"},
      {"pooling", std::string(name_of(kPoolingNames, mcfg_.pooling))},
      {"exact", exact},
      {"weights_are",
       "mean over the H units of g_k = i_k ⊙ Π_{l=k+1..T} f_l, the weight of token k in the final state "
       "h_T = Σ_k g_k ⊙ v_k (ATR Eq. 10 / the LRN unrolled form), zero initial state, inference mode"},
      {"value_is", std::string(traits.value_text)},
      {"weights_by_step_are", "row t: mean over units of g_k (k = 0..t) in the state after token t"},
      {"gates_are", "input_gate / forget_gate: mean over units of i_t / f_t at each token"},
      {"decomposition_check",
       {{"what", "||Σ_k g_k ⊙ v_k − h_T||₂ / ||h_T||₂ per sentence (sum in double, h_T from the float run)"},
        {"max_rel_error", max_rel},
        {"tolerance", kMemoryTolerance},
        {"passed", exact ? nlohmann::json(max_rel <= kMemoryTolerance) : nlohmann::json(nullptr)},
        {"note", exact ? "identity output: the decomposition is exact up to float rounding"
                       : "tanh output: the sum is only Eq. 10's approximation; no check"}}},
      {"sentences", list}};
  if (!list.empty()) {   // the first sentence at the top level, for a plotting script
    out["tokens"] = list[0]["tokens"];
    out["weights"] = list[0]["weights"];
  }
  return out;
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
  if (memory_n_ >= 0 || !memory_file_.empty()) {
    std::vector<Example> sents;
    std::vector<std::string> sources;
    memory_sentences(sents, sources);
    const nlohmann::json rep = memory_report(sents, sources);
    write_text_atomic((std::filesystem::path(run_dir) / "memory.json").string(), rep.dump() + "\n");
    summary["memory"] = {{"file", "memory.json"},
                         {"sentences", sents.size()},
                         {"exact", rep["exact"]},
                         {"max_rel_error", rep["decomposition_check"]["max_rel_error"]},
                         {"passed", rep["decomposition_check"]["passed"]}};
    std::fprintf(stderr, "classify: memory weights of %zu sentences -> %s/memory.json (max relative "
                 "reconstruction error %.3g)\n", sents.size(), run_dir.c_str(),
                 rep["decomposition_check"]["max_rel_error"].get<double>());
  }
}

}  // namespace twin::classify
