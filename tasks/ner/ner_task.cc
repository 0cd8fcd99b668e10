#include "ner_task.h"

#include <cstdio>
#include <filesystem>

#include "ner_tag.h"
#include "nn/text_embeddings.h"
#include "base/threads.h"
#include "ops/ops.h"
#include "train/run_dir.h"

namespace twin::ner {

NerTask::NerTask(JsonReader& root, const RunConfig& run, const TrainConfig&, const CliArgs&)
    : ExampleListTask(root, run) {
  const TextDataConfig& t = data_.text;
  read_splits(t.train, t.dev, t.test, [this](const std::string& f) { return read_split(data_, f); });
  vocab_ = build_vocab(train_, data_);
  build_model(vocab_);
  embeddings_found_ = load_text_embeddings(data_.text, vocab_.words, model_->word_embedding());
  std::fprintf(stderr, "ner: %s (%s): %zu / %zu / %zu sentences, %d words, %d characters, %zu %s tags\n",
               data_.text.dir.c_str(), data_.text.protocol.c_str(), train_.size(), dev_.size(), test_.size(),
               vocab_.words.size(), vocab_.chars.size(), vocab_.tags.size(), tag_scheme_name(data_.scheme));
}

SummedLoss NerTask::summed_loss(Graph& g, const std::vector<int>& ids, Rng& rng) {
  const NerBatch b = make_batch(train_, ids, vocab_, data_, /*with_gold=*/true, &rng);
  return {model_->loss(g, b, rng), static_cast<double>(b.tokens())};   // [1,1] summed over sentences
}

std::vector<std::vector<std::string>> NerTask::tag(const std::vector<Sentence>& data, double* seconds) const {
  Stopwatch sw;
  std::vector<std::vector<std::string>> out(data.size());
  for (const auto& idx : eval_batches(data, sentence_length, data_.text.eval_options())) {
    const NerBatch b = make_batch(data, idx, vocab_, data_, /*with_gold=*/false);
    const auto ids = model_->decode(b);
    for (size_t k = 0; k < idx.size(); ++k) {
      auto& tags = out[static_cast<size_t>(idx[k])];
      for (int id : ids[k]) tags.push_back(vocab_.tags[static_cast<size_t>(id)]);
    }
  }
  if (seconds) *seconds = sw.seconds();
  return out;
}

NerScored NerTask::score(const std::vector<Sentence>& data) const {
  NerScored s;
  double secs = 0;
  const auto pred = tag(data, &secs);
  SpanCounts counts;
  double tokens = 0;
  for (size_t i = 0; i < data.size(); ++i) {
    // Both sides in BIO, which the original conlleval.pl reads exactly; entities are unchanged by conversion.
    s.gold_bio.push_back(convert_tags(data[i].tags, TagScheme::kBio));
    s.pred_bio.push_back(convert_tags(pred[i], TagScheme::kBio));
    counts.add(s.gold_bio.back(), s.pred_bio.back());
    tokens += static_cast<double>(data[i].tokens.size());
  }
  s.metrics = counts.to_json();
  s.metrics["decode_tokens_s"] = tokens / std::max(secs, 1e-9);
  return s;
}

namespace {
// conlleval's input: `token gold predicted` per token, a blank line after each sentence.
std::string conll_lines(const std::vector<Sentence>& data, const std::vector<std::vector<std::string>>& gold,
                        const std::vector<std::vector<std::string>>& pred) {
  std::string out;
  for (size_t i = 0; i < data.size(); ++i) {
    for (size_t t = 0; t < data[i].tokens.size(); ++t)
      out += data[i].tokens[t] + " " + gold[i][t] + " " + pred[i][t] + "\n";
    out += "\n";
  }
  return out;
}
}  // namespace

void NerTask::finish(const std::string& run_dir, nlohmann::json& summary) {
  const std::string dir = (std::filesystem::path(run_dir) / "predictions").string();
  std::filesystem::create_directories(dir);
  for (const auto& [split, data, scored] :
       {std::tuple<std::string, const std::vector<Sentence>*, const NerScored*>{"dev", &dev_, &last_dev_},
        std::tuple<std::string, const std::vector<Sentence>*, const NerScored*>{"test", &test_, &last_test_}}) {
    if (scored->pred_bio.empty()) continue;
    write_text_atomic(dir + "/" + split + ".txt", conll_lines(*data, scored->gold_bio, scored->pred_bio));
    summary["predictions"][split] = "predictions/" + split + ".txt";
  }
  summary["protocol"] = data_.text.protocol;
  summary["data_dir"] = data_.text.dir;
  summary["scheme"] = tag_scheme_name(data_.scheme);
  summary["tags"] = vocab_.tags;
  summary["vocab"] = vocab_.words.size();
  summary["char_vocab"] = vocab_.chars.size();
  summary["embeddings"] = data_.text.embeddings.empty() ? nlohmann::json("random") : nlohmann::json(data_.text.embeddings);
  summary["embedding_rows_from_file"] = embeddings_found_;
  if (summary.contains("train_units_per_s")) summary["train_words_per_s"] = summary["train_units_per_s"];
  keep_vocabs(vocab_, run_dir);   // what `ner tag <run>` reads
}

}  // namespace twin::ner
