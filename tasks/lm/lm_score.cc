#include "lm_score.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "base/check.h"
#include "base/json_reader.h"
#include "base/threads.h"
#include "data/text.h"
#include "train/checkpoint.h"
#include "train/cli.h"
#include "train/run_dir.h"

namespace twin::lm {

namespace fs = std::filesystem;

namespace {
const char* kUsage =
    "usage: lm score <run> [--input FILE] [--output FILE] [--batch N] [--threads N]\n"
    "  one sentence per line in (stdin without --input); \"logprob<TAB>tokens<TAB>ppl\" per sentence out, then a\n"
    "  \"# total\" line (stdout without --output); <run> is a trained run folder (model.best.bin, config.resolved.json)\n";

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  TW_CHECK(in.good(), "cannot read ", path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
}  // namespace

Scorer Scorer::load(const std::string& run_dir) {
  const std::string cfg_path = run_dir + "/config.resolved.json", model_path = run_dir + "/model.best.bin";
  TW_CHECK(fs::is_directory(run_dir), "no run folder ", run_dir, " (HINT: give the out_dir of a trained lm run)");
  TW_CHECK(fs::exists(cfg_path), "no ", cfg_path, " (HINT: ", run_dir, " is not a run folder of the lm task)");
  TW_CHECK(fs::exists(model_path), "no trained model at ", model_path, " (HINT: a run writes it at its first dev ",
           "evaluation)");
  nlohmann::json cfg;
  try {
    cfg = nlohmann::json::parse(read_all(cfg_path));
  } catch (const nlohmann::json::exception& e) {
    TW_FAIL(cfg_path, " is not valid JSON (", e.what(), ")");
  }
  TW_CHECK(cfg.is_object() && cfg.contains("data") && cfg.contains("model") && cfg["data"].contains("bptt"), cfg_path,
           ": not the resolved config of an lm run (no data.bptt)");
  Scorer s;
  JsonReader root(cfg, cfg_path);
  JsonReader dr = root.child("data");
  s.data = parse_lm_data(dr);
  JsonReader mr = root.child("model");
  s.model_cfg = parse_lm_model(mr);
  const std::string vocab_path = run_dir + "/vocab.txt";
  if (fs::exists(vocab_path)) {
    s.vocab = Vocab::load(vocab_path, VocabOptions{{}, "<unk>", false, 1, 0});
  } else {
    // Runs that finished before the vocabulary was kept: the same deterministic build as the run's.
    std::fprintf(stderr, "lm score: %s keeps no vocab.txt; rebuilding the vocabulary from %s\n", run_dir.c_str(),
                 s.data.dir.c_str());
    s.vocab = load_corpus(s.data).vocab;
  }
  TW_CHECK(s.vocab.find("<eos>") >= 0, vocab_path, ": no <eos> word");
  s.store = std::make_unique<ParamStore>(1);
  s.model = std::make_unique<LmModel>(s.model_cfg, s.vocab.size(), *s.store);
  load_params(model_path, *s.store, LoadMode::kStrict);
  return s;
}

std::vector<SentenceScore> Scorer::score(const std::vector<std::string>& lines, int batch,
                                         const std::string& source) const {
  const std::int32_t eos = vocab.find("<eos>"), unk = vocab.find("<unk>");
  std::vector<SentenceScore> out(lines.size());
  std::vector<Ids> ids(lines.size());
  std::map<size_t, std::vector<size_t>> by_length;   // equal lengths batch without padding
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::int64_t bad = utf8_error_offset(lines[i]);
    TW_CHECK(bad < 0, source, ":", i + 1, ": invalid UTF-8 at byte ", bad, " of the line");
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
  std::string run, input, output;
  int batch = 64, threads = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      TW_CHECK(i + 1 < argc, a, " needs a value\n", kUsage);
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      std::printf("%s", kUsage);
      return 0;
    } else if (a == "--input") {
      input = value();
    } else if (a == "--output") {
      output = value();
    } else if (a == "--batch") {
      batch = static_cast<int>(parse_int_flag(a, value(), 1, 100000, "a number of sentences"));
    } else if (a == "--threads") {
      threads = static_cast<int>(parse_int_flag(a, value(), 1, 256, "a number"));
    } else if (a.rfind("--", 0) == 0) {
      TW_FAIL("unknown option '", a, "'\n", kUsage);
    } else {
      TW_CHECK(run.empty(), "more than one run folder given ('", run, "' and '", a, "')\n", kUsage);
      run = a;
    }
  }
  TW_CHECK(!run.empty(), "no run folder given\n", kUsage);
  set_num_threads(threads);
  const Scorer scorer = Scorer::load(run);
  std::vector<std::string> lines;
  if (input.empty()) {
    for (std::string l; std::getline(std::cin, l);) lines.push_back(l);
  } else {
    lines = read_lines(input);
  }
  const auto scores = scorer.score(lines, batch, input.empty() ? "<stdin>" : input);
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
  if (output.empty()) std::fwrite(text.data(), 1, text.size(), stdout);
  else write_text_atomic(output, text);
  std::fprintf(stderr, "lm score: %zu sentences, %ld tokens, %ld words outside the vocabulary scored as <unk>\n",
               lines.size(), tokens, unknown);
  return 0;
}

}  // namespace twin::lm
