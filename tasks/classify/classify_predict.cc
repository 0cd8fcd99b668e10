#include "classify_predict.h"

#include <cstdio>
#include <filesystem>

#include "base/check.h"
#include "base/json_reader.h"
#include "base/threads.h"
#include "data/text.h"
#include "ops/ops.h"
#include "train/checkpoint.h"
#include "train/predict_cli.h"
#include "train/trained_run.h"

namespace twin::classify {

namespace fs = std::filesystem;

namespace {
const char* kUsage =
    "usage: classify predict <run> [--input FILE] [--output FILE] [--batch N] [--threads N]\n"
    "  one tokenised sentence per line in (stdin without --input); \"label<TAB>probability\" per sentence out\n"
    "  (stdout without --output); <run> is a trained run folder (model.best.bin, config.resolved.json)\n";
}  // namespace

Predictor Predictor::load(const std::string& run_dir) {
  Predictor p;
  read_run_sections(p, run_dir, "classify", "num_labels", parse_classify_data, parse_classify_model);
  const std::string cfg_path = run_dir + "/config.resolved.json";
  const std::string vocab_path = run_dir + "/vocab.txt";
  if (fs::exists(vocab_path)) {
    p.vocab = Vocab::load(vocab_path, VocabOptions{{kPadWord, kUnkWord}, kUnkWord, false, 1, 0});
    p.num_labels = p.data.num_labels;   // resolved() writes the counted number
  } else {
    // Runs that finished before the vocabulary was kept: the same deterministic build as the run's.
    const std::string train_path = split_path(p.data, p.data.train);
    std::fprintf(stderr, "classify predict: %s keeps no vocab.txt; rebuilding the vocabulary from %s\n",
                 run_dir.c_str(), train_path.c_str());
    const std::vector<Example> train = read_examples(train_path, p.data.num_labels, p.data.lowercase);
    p.num_labels = count_labels(train, p.data, train_path);
    p.vocab = build_vocab(train, p.data);
  }
  TW_CHECK(p.num_labels >= 2, cfg_path, ": data.num_labels is ", p.num_labels, " (a trained run records at least 2)");
  load_run_model(p, run_dir, [&](ParamStore& store) {
    return std::make_unique<ClassifyModel>(p.model_cfg, p.vocab.size(), p.num_labels, store);
  });
  return p;
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
    e.label = 0;   // unused: there is no gold
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<Prediction> label_sentences(const ClassifyModel& model, const Vocab& vocab,
                                        const std::vector<Example>& sentences, int batch) {
  Rng unused(0);
  std::vector<Prediction> out(sentences.size());
  Graph g(Mode::kInfer);
  for (const auto& idx : eval_batches(sentences, example_length, batch)) {
    g.clear();
    const ClassifyBatch b = make_batch(sentences, idx, vocab);
    argmax_rows(model.logits(g, b.text, unused).val(), idx, out);   // logits [B, C]
  }
  return out;
}

int predict_main(int argc, char** argv) {
  return label_lines_main<Predictor>(
      argc, argv, kUsage, "classify predict", "sentences",
      [](const Predictor& p, const std::vector<std::string>& lines, const std::string& source) {
        return p.read_sentences(lines, source);
      },
      [](int label) { return std::to_string(label); });
}

}  // namespace twin::classify
