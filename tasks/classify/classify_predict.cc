#include "classify_predict.h"

#include <cstdio>

#include "base/check.h"
#include "base/json_reader.h"
#include "base/threads.h"
#include "data/text.h"
#include "ops/ops.h"
#include "train/checkpoint.h"
#include "train/predict_cli.h"
#include "train/trained_run.h"

namespace twin::classify {

std::unique_ptr<ClassifyModel> ClassifyParts::make(const ClassifyModelConfig& m, const ClassifyDataConfig& d,
                                                    const Vocab& v, ParamStore& store) {
  return std::make_unique<ClassifyModel>(m, v.size(), d.num_labels, store);
}

Vocab ClassifyParts::load_vocabs(ClassifyDataConfig& d, const std::string& run_dir) {
  const std::string train_path = split_path(d, d.train);
  Vocab v = load_kept_vocab(
      run_dir, "classify predict", train_path, pad_unk_options(), [&] {
        const std::vector<Example> train = read_examples(train_path, d.num_labels, d.lowercase, d.length);
        d.num_labels = count_labels(train, d, train_path);
        return build_vocab(train, d);
      });
  TW_CHECK(d.num_labels >= 2, run_dir, "/config.resolved.json: data.num_labels is ", d.num_labels,
           " (a trained run records at least 2)");
  return v;
}

std::vector<Example> Predictor::read_sentences(const std::vector<std::string>& lines,
                                               const std::string& source) const {
  std::vector<Example> out;
  out.reserve(lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string where = source + ":" + std::to_string(i + 1);
    Example e;
    e.tokens = split_whitespace(lines[i]);
    TW_CHECK(!e.tokens.empty(), where, ": empty line (expected a tokenised sentence, tokens separated by spaces)");
    if (data.lowercase) lowercase_ascii(e.tokens);
    e.dropped = truncate_tokens(e.tokens, data.length);   // the run's length policy
    e.label = 0;   // unused: there is no gold
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<Prediction> label_sentences(const ClassifyModel& model, const Vocab& vocab,
                                        const std::vector<Example>& sentences, const BatchingOptions& batching) {
  Rng unused(0);
  return label_examples(sentences, example_length, batching, [&](Graph& g, const std::vector<int>& ids) {
    const ClassifyBatch b = make_batch(sentences, ids, vocab);
    return Mat(model.logits(g, b.text, unused).val());   // [B, C]
  });
}

int predict_main(int argc, char** argv) {
  return label_lines_main<Predictor>(
      argc, argv, kPredictMode, "sentences",
      [](const Predictor& p, const std::vector<std::string>& lines, const std::string& source) {
        return p.read_sentences(lines, source);
      },
      [](int label) { return std::to_string(label); });
}

}  // namespace twin::classify
