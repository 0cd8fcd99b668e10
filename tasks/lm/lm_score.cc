#include "lm_score.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>

#include "base/check.h"
#include "base/json_reader.h"
#include "base/threads.h"
#include "data/text.h"
#include "train/checkpoint.h"
#include "train/predict_cli.h"
#include "train/trained_run.h"

namespace twin::lm {

std::unique_ptr<LmModel> LmParts::make(const LmModelConfig& m, const LmDataConfig&, const Vocab& v, ParamStore& store) {
  return std::make_unique<LmModel>(m, v.size(), store);
}

Vocab LmParts::load_vocabs(LmDataConfig& d, const std::string& run_dir) {
  Vocab v = load_kept_vocab(run_dir, "lm score", d.dir, kLmVocabOptions,
                            [&] { return load_corpus(d).vocab; });
  TW_CHECK(v.find("<eos>") >= 0, run_dir + "/" + kVocabFile, ": no <eos> word");
  return v;
}

std::vector<SentenceScore> Scorer::score(const std::vector<std::string>& lines, int batch,
                                         const std::string& source) const {
  const std::int32_t eos = vocab.find("<eos>"), unk = vocab.find("<unk>");
  std::vector<SentenceScore> out(lines.size());
  std::vector<Ids> ids(lines.size());
  std::map<size_t, std::vector<size_t>> by_length;   // equal lengths batch without padding
  for (size_t i = 0; i < lines.size(); ++i) {
    Ids& x = ids[i];
    x.push_back(eos);   // the context a line starts from in the training stream
    for (const std::string& w : split_whitespace(lines[i])) {
      std::int32_t id = vocab.find(w);
      if (id < 0) {
        TW_CHECK(unk >= 0, source, ":", i + 1, ": word '", w, "' is not in the vocabulary, which has no <unk>");
        id = unk;
        ++out[i].unknown;
      }
      x.push_back(id);
    }
    x.push_back(eos);
    by_length[x.size()].push_back(i);
  }
  Graph g(Mode::kInfer);
  for (const auto& [len, members] : by_length) {
    for (size_t from = 0; from < members.size(); from += static_cast<size_t>(batch)) {
      const size_t n = std::min(members.size() - from, static_cast<size_t>(batch));
      const Index T = static_cast<Index>(len) - 1, B = static_cast<Index>(n);
      IdMat input(T, B), target(T, B);
      for (Index b = 0; b < B; ++b) {
        const Ids& x = ids[members[from + static_cast<size_t>(b)]];
        for (Index t = 0; t < T; ++t) {
          input(t, b) = x[static_cast<size_t>(t)];
          target(t, b) = x[static_cast<size_t>(t + 1)];
        }
      }
      g.clear();
      LmState state;   // zeros: each sentence on its own
      const Mat nll = model->token_nll(g, input, target, state);
      for (Index b = 0; b < B; ++b) {
        SentenceScore& s = out[members[from + static_cast<size_t>(b)]];
        for (Index t = 0; t < T; ++t) s.logprob -= static_cast<double>(nll(t, b));
        s.tokens = static_cast<long>(T);
      }
    }
  }
  return out;
}

int score_main(int argc, char** argv) {
  return lines_mode_main<Scorer>(argc, argv, kScoreMode, [](const Scorer& scorer, const std::vector<std::string>& lines,
                                                        const PredictArgs& a) {
    const auto scores = scorer.score(lines, a.batch > 0 ? a.batch : 64, input_name(a));
    std::string text;
    char buf[96];
    double lp = 0;
    long tokens = 0, unknown = 0;
    for (const SentenceScore& s : scores) {
      std::snprintf(buf, sizeof buf, "%.17g\t%ld\t%.6g\n", s.logprob, s.tokens, std::exp(-s.logprob / s.tokens));
      text += buf;
      lp += s.logprob;
      tokens += s.tokens;
      unknown += s.unknown;
    }
    std::snprintf(buf, sizeof buf, "# total\t%.17g\t%ld\t%.6g\n", lp, tokens,
                  tokens > 0 ? std::exp(-lp / static_cast<double>(tokens)) : 0.0);
    text += buf;
    return ModeOutput{text, "lm score: " + std::to_string(lines.size()) + " sentences, " + std::to_string(tokens) +
                                " tokens, " + std::to_string(unknown) + " words outside the vocabulary scored as <unk>"};
  });
}

}  // namespace twin::lm
