#include "nmt_task.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "base/json_reader.h"
#include "model/nmt_gates.h"
#include "ops/ops.h"
#include "score/nmt_score.h"
#include "train/checkpoint.h"

namespace twin::nmt {

SubwordPair load_subwords(const NmtDataConfig& c) {
  SubwordPair p;
  if (c.bpe_src.empty()) {
    p.src = std::make_shared<Subword>(c.dir + "/" + c.bpe);
    p.tgt = p.src;
  } else {
    p.src = std::make_shared<Subword>(c.dir + "/" + c.bpe_src);
    p.tgt = std::make_shared<Subword>(c.dir + "/" + c.bpe_tgt);
  }
  return p;
}

NmtTask::NmtTask(JsonReader& root, const RunConfig& run, const TrainConfig&, const CliArgs&)
    : ExampleTask(root, run) {
  JsonReader cr = root.child("decode");
  dec_ = parse_decode(cr);
  sp_ = load_subwords(data_);
  FilterReport rep;
  train_ = read_parallel(split_path(data_, data_.train, data_.src), split_path(data_, data_.train, data_.tgt),
                         *sp_.src, *sp_.tgt, data_, /*training=*/true, &rep);
  std::fprintf(stderr, "nmt: training data %s.%s-%s: %s\n", data_.train.c_str(), data_.src.c_str(),
               data_.tgt.c_str(), rep.str().c_str());
  dev_ = read_parallel(split_path(data_, data_.dev, data_.src), split_path(data_, data_.dev, data_.tgt), *sp_.src,
                       *sp_.tgt, data_, false, nullptr);
  test_ = read_parallel(split_path(data_, data_.test, data_.src), split_path(data_, data_.test, data_.tgt),
                        *sp_.src, *sp_.tgt, data_, false, nullptr);
  build_model(sp_);
}

nlohmann::json NmtTask::resolved() const {
  return {{"data", to_json(data_)}, {"model", to_json(mcfg_)}, {"decode", to_json(dec_)}};
}

SummedLoss NmtTask::summed_loss(Graph& g, const std::vector<int>& ids, Rng& rng) {
  const NmtBatch b = make_nmt_batch(train_, ids);
  return {model_->loss(g, b, rng, mcfg_.label_smoothing), static_cast<double>(b.target_tokens())};   // summed over target tokens
}

double NmtTask::perplexity(const Parallel& data) const {
  Rng unused(0);
  double nll = 0, tokens = 0;
  Graph g(Mode::kInfer);
  for (const auto& idx : nmt_batches(data, data_, unused, /*shuffle=*/false)) {
    g.clear();
    const NmtBatch b = make_nmt_batch(data, idx);
    nll += model_->loss(g, b, unused, 0.0).val()(0, 0);
    tokens += static_cast<double>(b.target_tokens());
  }
  return std::exp(nll / tokens);
}

NmtTask::Scored NmtTask::translate_and_score(const std::string& split, const Parallel& data,
                                             const SearchConfig& sc) const {
  Scored s;
  const auto tr = translate_corpus({model_.get()}, *sp_.src, *sp_.tgt, data.src_text, sc, data_.eval_sentences,
                                   &s.stats);
  for (const auto& t : tr) s.hyps.push_back(t.text);
  s.metrics = score_split(data_, split, s.hyps, data.tgt_text, &s.detok);
  s.metrics.update({{"split", split},
                    {"beam", sc.beam},
                    {"sentences", s.stats.sentences},
                    {"decode_s", s.stats.seconds},
                    {"decode_tokens_s", s.stats.target_tokens / std::max(s.stats.seconds, 1e-9)}});
  return s;
}

Metrics NmtTask::evaluate(Split split) {
  const bool dev = split == Split::kDev;
  SearchConfig sc = dec_.search;
  if (dev) sc.beam = dec_.dev_beam;
  sc.nbest = 1;
  Scored s = translate_and_score(dev ? data_.dev : data_.test, dev ? dev_ : test_, sc);
  Metrics m;
  m.primary_name = "bleu";
  m.higher_is_better = true;
  m.primary = s.metrics.at("bleu").get<double>();
  m.values = {{"bleu", m.primary},
              {"ppl", perplexity(dev ? dev_ : test_)},
              {"beam", sc.beam},
              {"decode_tokens_s", s.metrics.at("decode_tokens_s")}};
  (dev ? last_dev_ : last_test_) = std::move(s);
  return m;
}

namespace {
void write_lines(const std::string& path, const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  write_text_atomic(path, text);
}
}  // namespace

void NmtTask::finish(const std::string& run_dir, nlohmann::json& summary) {
  namespace fs = std::filesystem;
  const std::string out_dir = run_dir + "/translations";
  fs::create_directories(out_dir);
  nlohmann::json results = nlohmann::json::object();
  auto report = [&](const std::string& split, Scored s) {
    write_lines(out_dir + "/" + split + "." + data_.tgt, s.hyps);
    if (!s.detok.empty()) write_lines(out_dir + "/" + split + ".detok." + data_.tgt, s.detok);
    std::fprintf(stderr, "nmt: %s beam %d: %s\n", split.c_str(), s.metrics.at("beam").get<int>(),
                 s.metrics.at("bleu_str").get<std::string>().c_str());
    results[split] = s.metrics;
  };
  // Every evaluated set's outputs are kept under the name of its entry in summary["translations"], so that
  // plots/rescore.py re-scores each number from them: <entry>.<tgt> (tokenised) and <entry>.detok.<tgt>.
  report(data_.test, last_test_);
  if (!last_dev_.hyps.empty()) report(data_.dev, last_dev_);   // the best model's dev translation (dev_beam)
  // Decoding speed at beam 1 (Table 4 reports both) on the test split.
  SearchConfig greedy = dec_.search;
  greedy.beam = 1;
  greedy.nbest = 1;
  report(data_.test + "_beam1", translate_and_score(data_.test, test_, greedy));
  for (const auto& split : data_.extra_tests) {
    const Parallel p = read_parallel(split_path(data_, split, data_.src), split_path(data_, split, data_.tgt),
                                     *sp_.src, *sp_.tgt, data_, false, nullptr);
    report(split, translate_and_score(split, p, dec_.search));
  }
  summary["translations"] = results;
  // The ATR paper's Fig. 3/4 analysis of the decoder on the test split (gates.json; r in the summary).
  const nlohmann::json gates = decoder_gate_statistics(*model_, test_, *sp_.tgt, 20);
  write_text_atomic(run_dir + "/gates.json", gates.dump() + "\n");
  for (const char* cell : {"cell1", "cell2"})
    if (gates.contains(cell) && gates[cell].contains("pearson_r_positions"))
      summary["decoder_gates"][cell] = {{"pair", gates[cell]["pair"]},
                                        {"pearson_r_positions", gates[cell]["pearson_r_positions"]},
                                        {"pearson_r_units", gates[cell]["pearson_r_units"]}};
}

}  // namespace twin::nmt
