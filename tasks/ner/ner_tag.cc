#include "ner_tag.h"

#include <cstdio>

#include "base/check.h"
#include "base/json_reader.h"
#include "base/threads.h"
#include "data/text.h"
#include "train/checkpoint.h"
#include "train/predict_cli.h"
#include "train/trained_run.h"
#include "train/run_dir.h"

namespace twin::ner {

std::unique_ptr<NerModel> NerParts::make(const NerModelConfig& m, const NerDataConfig&, const NerVocab& v,
                                          ParamStore& store) {
  return std::make_unique<NerModel>(m, v.words.size(), v.chars.size(), static_cast<int>(v.tags.size()), store);
}

NerVocab NerParts::load_vocabs(NerDataConfig& d, const std::string& run_dir) {
  const TextDataConfig& text = d.text;
  return load_kept_vocabs(run_dir, "ner tag", text.dir + "/" + text.train + "." + d.extension,
                          [&] { return build_vocab(read_split(d, text.train), d); });
}

std::vector<std::vector<std::string>> Tagger::read_sentences(const std::vector<std::string>& lines,
                                                             const std::string& source) {
  std::vector<std::vector<std::string>> out;
  out.reserve(lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    out.push_back(split_whitespace(lines[i]));
  }
  return out;
}

std::vector<std::vector<std::string>> Tagger::tag(const std::vector<std::vector<std::string>>& sentences,
                                                  const BatchingOptions& batching) const {
  std::vector<Sentence> sents;
  std::vector<size_t> line_of;   // sentence -> input position; empty sentences are not batched
  for (size_t i = 0; i < sentences.size(); ++i) {
    if (sentences[i].empty()) continue;
    Sentence s;
    s.tokens = sentences[i];
    s.line = static_cast<long>(i + 1);
    sents.push_back(std::move(s));
    line_of.push_back(i);
  }
  std::vector<std::vector<std::string>> out(sentences.size());
  // The batching of NerTask::tag (input order, no shuffling), so a run's own test split is tagged identically.
  for (const auto& idx : eval_batches(sents, sentence_length, batching)) {
    const NerBatch b = make_batch(sents, idx, vocab, data, /*with_gold=*/false);
    const auto ids = model->decode(b);
    for (size_t k = 0; k < idx.size(); ++k) {
      std::vector<std::string> tags;
      for (int id : ids[k]) tags.push_back(vocab.tags[static_cast<size_t>(id)]);
      out[line_of[static_cast<size_t>(idx[k])]] = convert_tags(tags, TagScheme::kBio);
    }
  }
  return out;
}

int tag_main(int argc, char** argv) {
  return lines_mode_main<Tagger>(argc, argv, kTagMode, [](const Tagger& tagger, const std::vector<std::string>& lines,
                                                        const PredictArgs& a) {
    const auto sentences = Tagger::read_sentences(lines, input_name(a));
    const auto tags = tagger.tag(sentences, tagger.data.text.eval_options(a.batch));
    std::string text;
    long tokens = 0;
    for (size_t i = 0; i < sentences.size(); ++i) {
      for (size_t t = 0; t < sentences[i].size(); ++t) text += sentences[i][t] + "\t" + tags[i][t] + "\n";
      text += "\n";
      tokens += static_cast<long>(sentences[i].size());
    }
    return ModeOutput{text, "ner tag: " + std::to_string(sentences.size()) + " sentences, " + std::to_string(tokens) +
                                " tokens, " + (a.output.empty() ? "to stdout" : a.output)};
  });
}

}  // namespace twin::ner
