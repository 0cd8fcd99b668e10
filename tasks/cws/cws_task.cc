#include "cws_task.h"

#include <cstdio>
#include <filesystem>

#include "bmes.h"
#include "cws_segment.h"
#include "eval/segmentation.h"
#include "ops/ops.h"
#include "train/checkpoint.h"

namespace twin::cws {

CwsTask::CwsTask(JsonReader& root, const RunConfig& run, const TrainConfig&, const CliArgs&)
    : ExampleListTask(root, run) {
  read_splits(data_.train, data_.dev, data_.test, [this](const std::string& f) { return read_split(data_, f); });
  vocab_ = build_vocab(train_, data_);
  train_words_ = read_word_list(data_.dir + "/" + data_.words);
  build_model(vocab_);
  std::fprintf(stderr, "cws: %s (%s): %zu / %zu / %zu sentences, %d characters in the vocabulary%s\n",
               data_.dir.c_str(), data_.protocol.c_str(), train_.size(), dev_.size(), test_.size(),
               vocab_.chars.size(), data_.bigrams ? (", " + std::to_string(vocab_.bigrams.size()) + " bigrams").c_str() : "");
}

SummedLoss CwsTask::summed_loss(Graph& g, const std::vector<int>& ids, Rng& rng) {
  const CwsBatch b = make_batch(train_, ids, vocab_, data_.bigrams);
  return {model_->loss(g, b, rng), static_cast<double>(b.characters())};   // [1,1] summed over sentences
}

std::vector<std::vector<std::string>> CwsTask::segment(const std::vector<Sentence>& data, double* seconds) const {
  Stopwatch sw;
  std::vector<std::vector<std::string>> out(data.size());
  for (const auto& idx : eval_batches(data, sentence_length, data_.eval_options())) {
    const CwsBatch b = make_batch(data, idx, vocab_, data_.bigrams);
    const auto tags = model_->decode(b);
    for (size_t k = 0; k < idx.size(); ++k) {
      const Sentence& s = data[static_cast<size_t>(idx[k])];
      out[static_cast<size_t>(idx[k])] = tags_to_words(s.chars, tags[k]);
    }
  }
  if (seconds) *seconds = sw.seconds();
  return out;
}

CwsScored CwsTask::score(const std::vector<Sentence>& data) const {
  CwsScored s;
  double secs = 0;
  s.words = segment(data, &secs);
  std::vector<std::vector<std::string>> gold;
  gold.reserve(data.size());
  double chars = 0;
  for (const Sentence& x : data) {
    gold.push_back(x.words);
    chars += static_cast<double>(x.chars.size());
  }
  s.metrics = score_corpus(gold, s.words, train_words_).to_json();
  s.metrics["decode_chars_s"] = chars / std::max(secs, 1e-9);
  return s;
}

void CwsTask::finish(const std::string& run_dir, nlohmann::json& summary) {
  // The bakeoff format, so that anyone can run the official score script:
  //   perl score <train_words> <gold> <run>/segmented/test.utf8
  std::filesystem::create_directories(run_dir + "/segmented");
  for (const auto& [split, scored] : {std::pair<std::string, const CwsScored*>{data_.dev, &last_dev_},
                                      std::pair<std::string, const CwsScored*>{data_.test, &last_test_}}) {
    if (scored->words.empty()) continue;
    write_segmented(run_dir + "/segmented/" + split + ".utf8", scored->words);
    summary["segmentation"][split] = scored->metrics;
  }
  summary["protocol"] = data_.protocol;
  keep_vocabs(vocab_, run_dir);   // what `cws segment <run>` reads
}

}  // namespace twin::cws
