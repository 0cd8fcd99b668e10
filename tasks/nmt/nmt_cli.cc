#include "nmt_cli.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "data/text.h"
#include "score/nmt_score.h"
#include "train/checkpoint.h"
#include "train/cli.h"
#include "base/json_reader.h"
#include "train/snapshots.h"

namespace twin::nmt {

namespace fs = std::filesystem;

std::unique_ptr<LoadedModel> load_model(const std::string& run_or_file) {
  auto m = std::make_unique<LoadedModel>();
  m->file = fs::is_directory(run_or_file) ? (fs::path(run_or_file) / "model.best.bin").string() : run_or_file;
  TW_CHECK(fs::exists(m->file), "no model at ", m->file, " (HINT: give a run folder with model.best.bin or a .bin file)");
  const nlohmann::json header = read_checkpoint_header(m->file);
  TW_CHECK(header.value("kind", "") == "params", m->file, ": not a parameter file");
  const nlohmann::json cfg = header.value("config", nlohmann::json::object());
  TW_CHECK(cfg.contains("model") && cfg.contains("data"), m->file,
           ": its embedded config has no model/data sections (HINT: not an nmt model)");
  JsonReader root(cfg, m->file + " (embedded config)");
  JsonReader dr = root.child("data");
  m->data = parse_nmt_data(dr);
  JsonReader mr = root.child("model");
  m->model = parse_nmt_model(mr);
  JsonReader cr = root.child("decode");
  m->decode = parse_decode(cr);
  m->subwords = load_subwords(m->data);
  m->store = std::make_unique<ParamStore>(1);
  m->net = std::make_unique<RnnSearch>(m->model, m->subwords.src->size(), m->subwords.tgt->size(), *m->store);
  load_params(m->file, *m->store, LoadMode::kStrict);
  return m;
}

namespace {

// Beam, n-best, batch and --last: at least 1; 10000 is far beyond any useful value.
int int_flag(const char* name, const std::string& v) { return static_cast<int>(parse_int_flag(name, v, 1, 10000)); }
// Spelt as the experiment key decode.normalize, through its one name table.
LengthNorm normalize_flag(const std::string& v) {
  const auto n = value_of(kLengthNormNames, v);
  TW_CHECK(n, "--normalize expects one of ", names_joined(kLengthNormNames, ", "), ", got '", v, "'");
  return *n;
}

void write_attention(const std::string& path, const std::vector<std::string>& lines, const std::vector<Translation>& tr,
                     const Subword& src, const Subword& tgt) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < tr.size(); ++i) {
    const Hypothesis& h = tr[i].nbest.front();
    std::vector<std::string> tp;
    for (auto id : h.tokens) tp.push_back(tgt.piece(id));
    tp.push_back("</s>");
    std::vector<std::string> sp = src.pieces(lines[i]);
    sp.push_back("</s>");
    out.push_back({{"source", sp}, {"target", tp}, {"weights", h.attention}});
  }
  write_text_atomic(path, out.dump() + "\n");
}

}  // namespace

int translate_main(int argc, char** argv) {
  const char* usage =
      "usage: nmt translate <run|model.bin> [more for an ensemble] [--beam N] [--nbest N] "
      "[--normalize none|length|gnmt] [--alpha A] [--batch N] [--split NAME | --input FILE] [--output FILE] "
      "[--attention FILE] [--scores FILE.json]";
  std::vector<std::string> models;
  std::string split, input, output, attention, scores_path;
  int beam = -1, nbest = 1, batch = 32;
  std::optional<LengthNorm> normalize;
  double alpha = -1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* {
      TW_CHECK(i + 1 < argc, a, " needs a value; ", usage);
      return argv[++i];
    };
    if (a == "--beam") beam = int_flag("--beam", value());
    else if (a == "--nbest") nbest = int_flag("--nbest", value());
    else if (a == "--batch") batch = int_flag("--batch", value());
    else if (a == "--normalize") normalize = normalize_flag(value());
    else if (a == "--alpha") alpha = std::atof(value());
    else if (a == "--split") split = value();
    else if (a == "--input") input = value();
    else if (a == "--output") output = value();
    else if (a == "--attention") attention = value();
    else if (a == "--scores") scores_path = value();
    else if (!a.empty() && a[0] == '-') TW_FAIL("unknown flag '", a, "'; ", usage);
    else models.push_back(a);
  }
  TW_CHECK(!models.empty(), "no model given; ", usage);
  TW_CHECK(split.empty() || input.empty(), "give --split or --input, not both");
  TW_CHECK(scores_path.empty() || !split.empty(), "--scores needs --split (scores need references)");
  std::vector<std::unique_ptr<LoadedModel>> loaded;
  std::vector<const RnnSearch*> nets;
  for (const auto& m : models) {
    loaded.push_back(load_model(m));
    nets.push_back(loaded.back()->net.get());
  }
  const LoadedModel& first = *loaded.front();
  SearchConfig sc = first.decode.search;
  if (beam > 0) sc.beam = beam;
  sc.nbest = nbest;
  if (normalize) sc.normalize = *normalize;
  if (alpha >= 0) sc.alpha = alpha;
  sc.keep_attention = !attention.empty();
  check_search_config(sc, static_cast<int>(first.net->tgt_vocab()));

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
  const auto tr = translate_corpus(nets, *first.subwords.src, *first.subwords.tgt, lines, sc, batch, &st);
  std::string text;
  for (size_t i = 0; i < tr.size(); ++i) {
    if (nbest == 1) {
      text += tr[i].text + "\n";
    } else {
      for (const auto& h : tr[i].nbest) {
        char score[64];
        std::snprintf(score, sizeof score, "%.6f", h.score);
        text += std::to_string(i) + " ||| " + first.subwords.tgt->decode(h.tokens) + " ||| " + score + "\n";
      }
    }
  }
  if (output.empty()) std::fputs(text.c_str(), stdout);
  else write_text_atomic(output, text);
  if (!attention.empty()) write_attention(attention, lines, tr, *first.subwords.src, *first.subwords.tgt);
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
    std::string cmd = "build/bin/nmt";
    for (int i = 0; i < argc; ++i) cmd += std::string(" ") + argv[i];
    scores["command"] = cmd;
    std::fprintf(stderr, "%s\n", scores.dump().c_str());
    if (!scores_path.empty()) write_text_atomic(scores_path, scores.dump(2) + "\n");
  }
  return 0;
}

int average_main(int argc, char** argv) {
  const char* usage = "usage: nmt average <run> [--last K] [--out FILE]";
  std::string run, out;
  int last = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--last" && i + 1 < argc) last = int_flag("--last", argv[++i]);
    else if (a == "--out" && i + 1 < argc) out = argv[++i];
    else if (!a.empty() && a[0] == '-') TW_FAIL("unknown or incomplete flag '", a, "'; ", usage);
    else if (run.empty()) run = a;
    else TW_FAIL("unexpected argument '", a, "'; ", usage);
  }
  TW_CHECK(!run.empty(), "no run folder given; ", usage);
  std::vector<std::string> snaps = list_snapshots(run);
  TW_CHECK(!snaps.empty(), run, " has no snapshots/model.step*.bin (HINT: train with train.keep_snapshots = K)");
  if (last > 0 && static_cast<size_t>(last) < snaps.size()) snaps.erase(snaps.begin(), snaps.end() - last);
  if (out.empty()) out = (fs::path(run) / "model.avg.bin").string();
  auto m = load_model(snaps.back());   // architecture and config from the newest snapshot
  average_params(snaps, *m->store);
  const nlohmann::json header = read_checkpoint_header(snaps.back());
  nlohmann::json cfg = header.value("config", nlohmann::json::object());
  save_params(out, *m->store, cfg);
  std::fprintf(stderr, "nmt average: %zu snapshots -> %s\n", snaps.size(), out.c_str());
  for (const auto& s : snaps) std::fprintf(stderr, "  %s\n", s.c_str());
  return 0;
}

}  // namespace twin::nmt
