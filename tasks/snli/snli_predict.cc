#include "snli_predict.h"

#include <algorithm>
#include <cstdio>

#include "base/check.h"
#include "base/json_reader.h"
#include "base/threads.h"
#include "data/text.h"
#include "ops/ops.h"
#include "train/checkpoint.h"
#include "train/predict_cli.h"
#include "train/trained_run.h"

namespace twin::snli {

std::unique_ptr<SnliModel> SnliParts::make(const SnliModelConfig& m, const SnliDataConfig&, const Vocab& v,
                                            ParamStore& store) {
  return std::make_unique<SnliModel>(m, v.size(), store);
}

Vocab SnliParts::load_vocabs(SnliDataConfig& d, const std::string& run_dir) {
  return load_kept_vocab(run_dir, "snli predict", d.dir + "/" + d.train + ".tsv",
                         pad_unk_options(),
                         [&] { return build_vocab(read_split(d, d.train), d); });
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
                                    const BatchingOptions& batching) {
  Rng unused(0);
  return label_examples(pairs, pair_length, batching, [&](Graph& g, const std::vector<int>& ids) {
    const SnliBatch b = make_batch(pairs, ids, vocab);
    return Mat(model.logits(g, b.premise, b.hypothesis, unused).val());   // [B, 3]
  });
}

int predict_main(int argc, char** argv) {
  return label_lines_main<Predictor>(
      argc, argv, kPredictMode, "pairs",
      [](const Predictor& p, const std::vector<std::string>& lines, const std::string& source) {
        return p.read_pairs(lines, source);
      },
      [](int label) { return label_name(label); });
}

}  // namespace twin::snli
