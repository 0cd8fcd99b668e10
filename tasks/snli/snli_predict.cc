#include "snli_predict.h"

#include <algorithm>
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

namespace twin::snli {

namespace fs = std::filesystem;

namespace {
const char* kUsage =
    "usage: snli predict <run> [--input FILE] [--output FILE] [--batch N] [--threads N]\n"
    "  one \"premise<TAB>hypothesis\" pair per line in (tokenised; stdin without --input); \"label<TAB>probability\"\n"
    "  per pair out (stdout without --output); <run> is a trained run folder (model.best.bin, config.resolved.json)\n";
}  // namespace

Predictor Predictor::load(const std::string& run_dir) {
  // snli's data keys are all shared with classify (which adds num_labels), so the model's `kind` marks the task.
  Predictor p;
  read_run_sections(p, run_dir, "snli", "lowercase", parse_snli_data, parse_snli_model, "kind");
  const std::string vocab_path = run_dir + "/vocab.txt";
  if (fs::exists(vocab_path)) {
    p.vocab = Vocab::load(vocab_path, VocabOptions{{kPadWord, kUnkWord}, kUnkWord, false, 1, 0});
  } else {
    // Runs that finished before the vocabulary was kept: the same deterministic build as the run's.
    std::fprintf(stderr, "snli predict: %s keeps no vocab.txt; rebuilding the vocabulary from %s/%s.tsv\n",
                 run_dir.c_str(), p.data.dir.c_str(), p.data.train.c_str());
    p.vocab = build_vocab(read_split(p.data, p.data.train), p.data);
  }
  load_run_model(p, run_dir, [&](ParamStore& store) { return std::make_unique<SnliModel>(p.model_cfg, p.vocab.size(), store); });
  return p;
}

std::vector<Pair> Predictor::read_pairs(const std::vector<std::string>& lines, const std::string& source) const {
  std::vector<Pair> out;
  out.reserve(lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string where = source + ":" + std::to_string(i + 1);
    const std::string& line = lines[i];
    const auto tabs = std::count(line.begin(), line.end(), '\t');
    TW_CHECK(tabs == 1, where, ": ", tabs, " TABs, expected exactly one (premise<TAB>hypothesis, each tokenised)");
    const size_t tab = line.find('\t');
    Pair p;
    p.premise = split_whitespace(std::string_view(line).substr(0, tab));
    p.hypothesis = split_whitespace(std::string_view(line).substr(tab + 1));
    TW_CHECK(!p.premise.empty(), where, ": empty premise (expected premise<TAB>hypothesis)");
    TW_CHECK(!p.hypothesis.empty(), where, ": empty hypothesis (expected premise<TAB>hypothesis)");
    if (data.lowercase) {
      lowercase_ascii(p.premise);
      lowercase_ascii(p.hypothesis);
    }
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<Prediction> label_pairs(const SnliModel& model, const Vocab& vocab, const std::vector<Pair>& pairs,
                                    int batch) {
  Rng unused(0);
  std::vector<Prediction> out(pairs.size());
  Graph g(Mode::kInfer);
  for (const auto& idx : eval_batches(pairs, pair_length, batch)) {
    g.clear();
    const SnliBatch b = make_batch(pairs, idx, vocab);
    argmax_rows(model.logits(g, b.premise, b.hypothesis, unused).val(), idx, out);   // logits [B, 3]
  }
  return out;
}

int predict_main(int argc, char** argv) {
  return label_lines_main<Predictor>(
      argc, argv, kUsage, "snli predict", "pairs",
      [](const Predictor& p, const std::vector<std::string>& lines, const std::string& source) {
        return p.read_pairs(lines, source);
      },
      [](int label) { return label_name(label); });
}

}  // namespace twin::snli
