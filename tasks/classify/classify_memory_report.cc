#include "classify_memory_report.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "base/file_io.h"
#include "classify_memory.h"
#include "data/batch.h"
#include "data/text.h"
#include "ops/ops.h"
#include "rnn/cell_factory.h"
#include "train/args.h"

namespace twin::classify {

namespace {

std::vector<double> row_of(const Mat& m, Index r, Index n) {
  std::vector<double> out(static_cast<size_t>(n));
  for (Index k = 0; k < n; ++k) out[static_cast<size_t>(k)] = static_cast<double>(m(r, k));
  return out;
}

}  // namespace

MemoryRequest parse_memory_request(const std::map<std::string, std::string>& task_flags, const ClassifyModelConfig& m) {
  MemoryRequest req;
  if (auto it = task_flags.find("--memory"); it != task_flags.end())
    req.n = static_cast<int>(parse_int_flag("--memory", it->second, 0, 1000000, "a number of test sentences"));
  if (auto it = task_flags.find("--memory-file"); it != task_flags.end()) {
    req.file = it->second;
    TW_CHECK(std::filesystem::exists(req.file), "--memory-file: ", req.file, " not found");
  }
  if (req.wanted()) {
    const std::string why = memory_unsupported_reason(m);
    TW_CHECK(why.empty(), "--memory / --memory-file: ", why, " (this run's model: encoder ", name_of(kEncoderNames,
             m.encoder), ", cell ", m.cell.type, m.bidirectional ? ", bidirectional" : "", ")");
  }
  return req;
}

void memory_sentences(const MemoryRequest& req, const MemorySubject& s, std::vector<Example>& sentences,
                      std::vector<std::string>& sources) {
  sentences.clear();
  sources.clear();
  if (!req.file.empty()) {
    LineReader in(req.file);
    std::string line;
    while (in.next(line)) {
      Example e;
      e.tokens = split_whitespace(line);
      if (e.tokens.empty()) continue;   // blank lines separate nothing; skip them
      if (s.data.lowercase) lowercase_ascii(e.tokens);
      e.dropped = truncate_tokens(e.tokens, s.data.length);
      e.label = -1;
      sentences.push_back(std::move(e));
      sources.push_back("file:" + std::to_string(in.line_no()));
    }
    TW_CHECK(!sentences.empty(), "--memory-file ", req.file, ": no sentences");
  }
  if (req.n < 0) return;
  const std::vector<Example>& test = s.test;
  std::vector<size_t> chosen;
  if (req.file.empty()) {   // the LRN paper's example word first: a positive sentence if there is one
    auto has_great = [&](size_t k) {
      const auto& t = test[k].tokens;
      return t.size() <= 25 && std::find(t.begin(), t.end(), "great") != t.end();
    };
    auto positive = [&](size_t k) { return 2 * test[k].label > s.num_labels - 1; };   // upper half of the labels
    for (int pass = 0; pass < 2 && chosen.empty(); ++pass)
      for (size_t k = 0; k < test.size(); ++k)
        if (has_great(k) && (pass == 1 || positive(k))) {
          chosen.push_back(k);
          break;
        }
  }
  int others = 0;   // then the first N test sentences
  for (size_t k = 0; k < test.size() && others < req.n; ++k)
    if (std::find(chosen.begin(), chosen.end(), k) == chosen.end()) {
      chosen.push_back(k);
      ++others;
    }
  for (size_t k : chosen) {
    sentences.push_back(test[k]);
    sources.push_back(s.data.test + ":" + std::to_string(k + 1));   // file line number
  }
}

nlohmann::json memory_report(const MemorySubject& s, const std::vector<Example>& sentences,
                             const std::vector<std::string>& sources) {
  TW_CHECK(sentences.size() == sources.size(), "memory_report: ", sentences.size(), " sentences, ", sources.size(),
           " sources");
  const bool exact = memory_is_exact(s.config);
  const std::string& cell = s.config.cell.type;
  const CellTraits traits = cell_traits(s.config.cell);
  nlohmann::json list = nlohmann::json::array();
  double max_rel = 0;
  Rng unused(0);
  for (size_t n = 0; n < sentences.size(); ++n) {
    const Example& e = sentences[n];
    const Ids ids = s.vocab.encode(e.tokens);
    const MemoryWeights w = memory_weights(s.model, ids);
    max_rel = std::max(max_rel, w.rel_error);
    Graph g(Mode::kInfer);
    const Mat lg = s.model.logits(g, pad_batch(std::vector<Ids>{ids}, kPadId), unused).val();   // [1, C]
    const Mat p = softmax_rows(lg);
    Index pred = 0;
    lg.row(0).maxCoeff(&pred);
    const Index T = static_cast<Index>(ids.size());
    nlohmann::json by_step = nlohmann::json::array();
    for (Index t = 0; t < T; ++t) by_step.push_back(row_of(w.weights_by_step, t, t + 1));   // k = 0..t
    nlohmann::json one = {{"source", sources[n]},
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
      if (ids[static_cast<size_t>(k)] == s.vocab.unk_id()) one["unknown"].push_back(k);
    if (n == 0) {   // every unit's weight for the first sentence only (keeps the file small)
      nlohmann::json units = nlohmann::json::array();
      for (Index k = 0; k < T; ++k) units.push_back(row_of(w.weights_units, k, w.weights_units.cols()));
      one["weights_units"] = units;
    }
    list.push_back(std::move(one));
  }
  nlohmann::json out = {
      {"cell", cell},
      {"output", s.config.cell.output == CellOutput::kDefault
                     ? std::string(name_of(kCellOutputNames, traits.output)) + " (default)"
                     : std::string(name_of(kCellOutputNames, s.config.cell.output))},
      {"direction", "forward"},
      {"pooling", std::string(name_of(kPoolingNames, s.config.pooling))},
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

nlohmann::json write_memory_json(const MemoryRequest& req, const MemorySubject& s, const std::string& run_dir) {
  std::vector<Example> sents;
  std::vector<std::string> sources;
  memory_sentences(req, s, sents, sources);
  const nlohmann::json rep = memory_report(s, sents, sources);
  write_text_atomic((std::filesystem::path(run_dir) / "memory.json").string(), rep.dump() + "\n");
  std::fprintf(stderr, "classify: memory weights of %zu sentences -> %s/memory.json (max relative "
               "reconstruction error %.3g)\n", sents.size(), run_dir.c_str(),
               rep["decomposition_check"]["max_rel_error"].get<double>());
  return {{"file", "memory.json"},
          {"sentences", sents.size()},
          {"exact", rep["exact"]},
          {"max_rel_error", rep["decomposition_check"]["max_rel_error"]},
          {"passed", rep["decomposition_check"]["passed"]}};
}

}  // namespace twin::classify
