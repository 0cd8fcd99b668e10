#include "nmt_cli.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "data/text.h"
#include "decode/translation_output.h"
#include "score/nmt_score.h"
#include "train/checkpoint.h"
#include "train/cli.h"
#include "base/json_reader.h"

namespace twin::nmt {

std::unique_ptr<LoadedModel> load_model(const std::string& run_or_file) {
  auto m = std::make_unique<LoadedModel>(LoadedModel::load(run_or_file));
  JsonReader root(m->source.config, m->source.config_name);
  JsonReader cr = root.child("decode");
  m->decode = parse_decode(cr);
  return m;
}

namespace {

// Beam, n-best, batch and --last: at least 1; 10000 is far beyond any useful value.
int int_flag(const ParsedArgs& p, const char* name, int fallback) {
  return static_cast<int>(p.integer(name, 1, 10000, fallback));
}
// Spelt as the experiment key decode.normalize, through its one name table.
LengthNorm normalize_flag(const std::string& v) {
  const auto n = value_of(kLengthNormNames, v);
  TW_CHECK(n, "--normalize expects one of ", names_joined(kLengthNormNames, ", "), ", got '", v, "'");
  return *n;
}

}  // namespace

CommandSpec translate_command() {
  CommandSpec c("nmt translate", "<run|model.bin> [more for an ensemble]", "model");
  c.operand_doc = "a run folder (its model.best.bin) or any parameter file (model.avg.bin, snapshots/...); several\n"
                  "models decode as an ensemble";
  c.many = true;
  c.options = {{"--beam", "N", "beam size (default: the model's decode.beam)"},
               {"--nbest", "N", "the N best translations per sentence, as \"i ||| text ||| score\" lines (default 1)"},
               {"--normalize", names_joined(kLengthNormNames, "|"),
                "hypothesis score (default: the model's decode.normalize)"},
               {"--alpha", "A", "GNMT length penalty alpha (default: the model's decode.alpha)"},
               {"--batch", "N", "sentences per batch (default 32)"},
               {"--split", "NAME", "translate a prepared split of the model's data and score it with BLEU",
                OptionSpec::kValue, "[--split NAME | --input FILE]"},
               {"--input", "FILE", "source sentences, one per line (default: stdin)", OptionSpec::kValue, "-"},
               {"--output", "FILE", "the translations (default: stdout)"},
               {"--attention", "FILE", "the best translation's attention weights per sentence, as JSON"},
               {"--scores", "FILE.json", "--split's scores as JSON"}};
  c.summary = "decode stdin, a file or a prepared split (scored with BLEU)";
  return c;
}

namespace {
// Moved (issue 28) rather than dropped, so a command from an old note or report says where it went instead of
// being read as an experiment file named "bench".
int bench_moved_main(int, char**) {
  TW_FAIL("the NMT speed benchmark moved to `build/bin/speed nmt <experiment.json> ...` (same flags)");
}
}  // namespace

std::vector<CommandMode> NmtTask::modes() {
  return {{"translate", translate_command(), translate_main},
          {"average", average_command(), average_main},
          {"bench", CommandSpec{}, bench_moved_main}};
}

int translate_main(int argc, char** argv) {
  const std::optional<ParsedArgs> p = parse_args_or_help(translate_command(), argc, argv);
  if (!p) return 0;
  const std::vector<std::string>& models = p->operands;
  const std::string split = p->text("--split"), input = p->text("--input"), output = p->text("--output");
  const std::string attention = p->text("--attention"), scores_path = p->text("--scores");
  const int beam = int_flag(*p, "--beam", -1), nbest = int_flag(*p, "--nbest", 1), batch = int_flag(*p, "--batch", 32);
  std::optional<LengthNorm> normalize;
  if (p->given("--normalize")) normalize = normalize_flag(p->text("--normalize"));
  const double alpha = p->number("--alpha", 0.0, 10.0, -1);
  TW_CHECK(split.empty() || input.empty(), "give --split or --input, not both");
  TW_CHECK(scores_path.empty() || !split.empty(), "--scores needs --split (scores need references)");
  std::vector<std::unique_ptr<LoadedModel>> loaded;
  std::vector<const NmtModel*> nets;
  for (const auto& m : models) {
    loaded.push_back(load_model(m));
    nets.push_back(loaded.back()->model.get());
  }
  const LoadedModel& first = *loaded.front();
  SearchConfig sc = first.decode.search;
  if (beam > 0) sc.beam = beam;
  sc.nbest = nbest;
  if (normalize) sc.normalize = *normalize;
  if (alpha >= 0) sc.alpha = alpha;
  sc.keep_attention = !attention.empty();
  check_search_config(sc, static_cast<int>(first.model->tgt_vocab()));

  std::vector<std::string> lines, refs;
  if (!split.empty()) {
    lines = read_lines(split_path(first.data, split, first.data.src));
    refs = read_lines(split_path(first.data, split, first.data.tgt));
    TW_CHECK(lines.size() == refs.size(), "split ", split, ": ", lines.size(), " source lines but ", refs.size(),
             " references");
  } else if (!input.empty()) {
    lines = read_lines(input);
  } else {
    for (std::string l; std::getline(std::cin, l);) lines.push_back(l);
  }
  DecodeStats st;
  const auto tr = translate_corpus(nets, *first.vocab.src, *first.vocab.tgt, lines, sc, batch, &st);
  const std::string text = translation_text(tr, nbest, *first.vocab.tgt);
  if (output.empty()) std::fputs(text.c_str(), stdout);
  else write_text_atomic(output, text);
  if (!attention.empty()) write_attention(attention, lines, tr, *first.vocab.src, *first.vocab.tgt);
  std::fprintf(stderr, "nmt translate: %zu sentences, %ld target tokens in %.2f s (%.0f tokens/s), beam %d, %zu model(s)\n",
               lines.size(), st.target_tokens, st.seconds, st.target_tokens / std::max(st.seconds, 1e-9), sc.beam,
               nets.size());
  if (!split.empty()) {
    std::vector<std::string> hyps;
    for (const auto& t : tr) hyps.push_back(t.text);
    nlohmann::json scores = score_split(first.data, split, hyps, refs);
    std::fprintf(stderr, "%s\n", scores.at("bleu_str").get<std::string>().c_str());
    if (scores.contains("sacrebleu"))
      std::fprintf(stderr, "sacreBLEU %s\n%s\n", scores.at("sacrebleu_signature").get<std::string>().c_str(),
                   scores.at("sacrebleu_str").get<std::string>().c_str());
    scores.update({{"split", split}, {"beam", sc.beam}, {"models", models}});
    scores["command"] = "build/bin/nmt " + p->command_line;
    std::fprintf(stderr, "%s\n", scores.dump().c_str());
    if (!scores_path.empty()) write_text_atomic(scores_path, scores.dump(2) + "\n");
  }
  return 0;
}

}  // namespace twin::nmt
