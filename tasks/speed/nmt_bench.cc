// speed nmt <experiment.json> [--set k=v ...] [--cells atr,gru,lstm] [--steps N] [--sentences N] [--threads N]
//           [--out PREFIX]   (writes PREFIX.json, PREFIX.md and PREFIX.csv)
//           [--shaped-corpus V [--shaped-len L] [--shaped-pairs N]]
// --shaped-corpus: instead of the experiment's data, a generated corpus with a large task's shape (V pieces per
// side, sentences of L +- 40 % words; nmt_shaped_corpus.h) in a temporary folder: the speed of a model whose
// corpus we do not have (the WMT14 size of the ATR paper), measured rather than extrapolated.
// The ATR paper's Table 4 on this machine: for each cell at the experiment's (equal) dimensions, training
// target tokens/s (forward + backward + clip + Adam over the first real training batches) and decoding
// target tokens/s at beam 1 and beam 10 (the first test sentences, the models' own output lengths), the same
// decoders' rows/s with every hypothesis run to its max length (SearchConfig::fixed_length: the same work for
// every cell), plus parameters. Measure with the cores
// otherwise idle; the run folders' own words/s are taken while other jobs share the machine.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "base/profile.h"
#include "base/threads.h"
#include "nmt_bench.h"
#include "nmt_shaped_corpus.h"
#include "speed_bench.h"   // machine_info()
#include "nmt_task.h"
#include "optim/clip.h"
#include "optim/optimizer.h"
#include "train/experiment.h"
#include "train/args.h"
#include "train/cli.h"
#include "train/records_csv.h"

namespace twin::speed {

namespace {
std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string x; std::getline(ss, x, ',');)
    if (!x.empty()) out.push_back(x);
  return out;
}
}  // namespace

CommandSpec nmt_bench_command() {
  CommandSpec c("speed nmt", "<experiment.json>", "experiment file");
  c.about = "Measures RNNSearch training and beam-search decoding target tokens/s per cell on the experiment's\n"
            "data, or with --shaped-corpus V on a generated corpus of vocabulary V (sentence length L, N pairs).\n";
  c.options = {set_option(),
               {"--cells", "a,b,c", "the cells to measure (default: atr,gru,lstm)"},
               {"--steps", "N", "training steps measured, after 3 warm-up steps (default 20)"},
               {"--sentences", "N", "test sentences decoded (default 100)"},
               {"--threads", "N", "threads (default 1)"},
               {"--out", "PREFIX", "writes PREFIX.json, PREFIX.md and PREFIX.csv"},
               {"--shaped-corpus", "V", "a generated corpus of V pieces per side instead of the experiment's data",
                OptionSpec::kValue, "[--shaped-corpus V [--shaped-len L] [--shaped-pairs N]]"},
               {"--shaped-len", "L", "its mean sentence length in words (default 26)", OptionSpec::kValue, "-"},
               {"--shaped-pairs", "N", "its training pairs (default 4000)", OptionSpec::kValue, "-"}};
  c.summary = "the NMT benchmark (the ATR paper's Table 4 for translation), once `nmt bench`";
  return c;
}

int nmt_bench_main(int argc, char** argv) {
  const std::optional<ParsedArgs> p = parse_args_or_help(nmt_bench_command(), argc, argv);
  if (!p) return 0;
  auto count = [&](const char* flag, int fallback) { return static_cast<int>(p->integer(flag, 1, 1000000, fallback)); };
  const std::string config = p->operands.front(), out = p->text("--out");
  std::vector<std::string> overrides = p->texts("--set");
  const std::vector<std::string> cells = split_commas(p->text("--cells", "atr,gru,lstm"));
  const int steps = count("--steps", 20), sentences = count("--sentences", 100), threads = count("--threads", 1);
  const int shaped_vocab = count("--shaped-corpus", 0), shaped_len = count("--shaped-len", 26);
  const int shaped_pairs = count("--shaped-pairs", 4000);
  TW_CHECK(!cells.empty(), "--cells names no cell");
  set_num_threads(threads);
  std::string shaped_dir;
  if (shaped_vocab > 0) {
    shaped_dir = (std::filesystem::temp_directory_path() / ("nmt_bench_shaped_" + std::to_string(::getpid()))).string();
    std::fprintf(stderr, "speed nmt: writing a shaped corpus (%d pieces per side, %d +- 40%% words, %d pairs) to %s\n",
                 shaped_vocab, shaped_len, shaped_pairs, shaped_dir.c_str());
    write_shaped_parallel(shaped_dir, 1, shaped_pairs, std::max(sentences, 100), shaped_vocab, shaped_len);
    for (std::string o : {"data.src=\"src\"", "data.tgt=\"tgt\"", "data.form=\"tok\"", "data.train=\"train\"",
                          "data.dev=\"val\"", "data.test=\"test\"", "data.extra_tests=[]",
                          "data.bpe_src=\"spm/src.model\"", "data.bpe_tgt=\"spm/tgt.model\""})
      overrides.push_back(o);
    overrides.push_back("data.dir=\"" + shaped_dir + "\"");
  }
  nlohmann::json rows = nlohmann::json::array();
  std::string md = "| cell | params | train tokens/s | decode tokens/s beam 1 | tokens/sentence | "
                   "rows/s at max length | decode tokens/s beam 10 | tokens/sentence | rows/s at max length |\n"
                   "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& cell : cells) {
    std::vector<std::string> ov = overrides;
    ov.push_back("model.cell.type=\"" + cell + "\"");
    ov.push_back("out_dir=\"/tmp/nmt_bench_unused\"");
    Experiment exp = Experiment::load(config, ov);
    JsonReader root = exp.reader();
    RunConfig run = parse_run(root);
    JsonReader tr = root.child("train");
    TrainConfig tc = parse_train(tr);
    CliArgs args;
    nmt::NmtTask task(root, run, tc, args);
    auto opt = make_optimizer(tc.optim);
    opt->init(task.params());
    Rng order(1), rng(2);
    const size_t n_batches = task.begin_epoch(1, order);
    Graph g(Mode::kTrain);
    double tokens = 0, secs = 0;
    for (int s = 0; s < steps + 3; ++s) {
      Stopwatch w;
      g.clear();
      LossOut lo = task.loss(g, static_cast<size_t>(s) % n_batches, rng);
      g.backward(lo.loss);
      clip_global_norm(task.params(), static_cast<Real>(tc.optim.clip_norm));
      opt->step(task.params(), static_cast<Real>(tc.optim.lr));
      task.params().zero_grad();
      if (s >= 3) tokens += lo.units, secs += w.seconds();   // 3 warm-up steps
    }
    // Bytes MPI_Allreduce moves per step under data parallelism (train/dist.h: every gradient, as Real).
    nlohmann::json row = {{"cell", cell}, {"params", task.params().total_size()}, {"train_tokens_s", tokens / secs},
                          {"train_steps", steps}, {"train_tokens_per_step", tokens / steps}, {"src_vocab", task.subwords().src->size()},
                          {"tgt_vocab", task.subwords().tgt->size()},
                          {"allreduce_bytes_per_step", task.params().total_size() * static_cast<long>(sizeof(Real))}};
    const auto lines = task.test_sources(static_cast<size_t>(sentences));
    for (int beam : {1, 10}) {
      const std::string b = std::to_string(beam);
      for (bool fixed : {false, true}) {
        nmt::SearchConfig sc = task.decode_config().search;
        sc.beam = beam;
        sc.nbest = 1;
        // fixed: EOS forbidden, every hypothesis runs to its max length (floor(a * source length + b)): the same
        // rows for every cell, so rows/s compares the decoders; the natural decode's tokens/s also counts how
        // long each model's outputs are (barely trained models stop at once or run on).
        sc.fixed_length = fixed;
        nmt::DecodeStats st;
        profile::reset();
        nmt::translate_corpus({&task.model()}, *task.subwords().src, *task.subwords().tgt,
                              lines, sc, task.resolved_data().eval_sentences, &st);
        // TWIN_PROFILE=1: where the decoding time goes, per decoder step (the ops' time; the rest of the
        // wall time is the search itself: top-k, back-pointers, gathering the states).
        if (profile::enabled())
          std::fprintf(stderr, "\nprofile: %s, beam %d%s, %.3f s for %ld steps, %ld rows\n\n%s\n", cell.c_str(), beam,
                       fixed ? " at max length" : "", st.seconds, st.decoder_steps, st.decoder_rows,
                       profile::report(static_cast<double>(std::max(st.decoder_steps, 1L))).c_str());
        const std::string k = fixed ? "_fixed_beam" + b : "_beam" + b;
        if (!fixed) row["decode_tokens_s" + k] = st.target_tokens / st.seconds;
        row["decode_target_tokens" + k] = st.target_tokens;
        row["decode_rows_s" + k] = st.decoder_rows / st.seconds;
        row["decode_rows" + k] = st.decoder_rows;
        row["decode_steps" + k] = st.decoder_steps;
      }
    }
    const double n_sent = static_cast<double>(std::max<std::size_t>(lines.size(), 1));
    char buf[384];
    std::snprintf(buf, sizeof buf, "| %s | %lld | %.0f | %.0f | %.1f | %.0f | %.0f | %.1f | %.0f |\n", cell.c_str(),
                  static_cast<long long>(task.params().total_size()), row["train_tokens_s"].get<double>(),
                  row["decode_tokens_s_beam1"].get<double>(), row["decode_target_tokens_beam1"].get<double>() / n_sent,
                  row["decode_rows_s_fixed_beam1"].get<double>(), row["decode_tokens_s_beam10"].get<double>(),
                  row["decode_target_tokens_beam10"].get<double>() / n_sent,
                  row["decode_rows_s_fixed_beam10"].get<double>());
    md += buf;
    std::fprintf(stderr, "%s", buf);
    rows.push_back(row);
  }
  nlohmann::json doc = {{"experiment", config}, {"overrides", overrides}, {"threads", threads},
                        {"steps", steps},       {"sentences", sentences}, {"rows", rows}};
  if (!shaped_dir.empty()) {
    doc["shaped_corpus"] = {{"pieces_per_side", shaped_vocab}, {"mean_words", shaped_len}, {"train_pairs", shaped_pairs}};
    std::filesystem::remove_all(shaped_dir);
  }
  std::printf("%s", md.c_str());
  if (!out.empty()) {
    const std::string cmd = "build/bin/speed " + p->command_line;   // argv[0] is "nmt"
    const std::time_t now = std::time(nullptr);
    char date[32];
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    doc["command"] = cmd;
    doc["date"] = date;
    doc["machine"] = machine_info();   // the CPU, the product kernels and the allocator setting
    const std::string corpus =
        shaped_dir.empty() ? std::string("RNNSearch on the experiment's batches")
                           : "RNNSearch on a generated corpus of a large task's shape (" + std::to_string(shaped_vocab) +
                                 " pieces per side, " + std::to_string(shaped_len) + " +- 40 % words per sentence)";
    const std::string head =
        "# NMT speed (the ATR paper's Table 4 shape): " + corpus + "\n\n`" + cmd + "`, " + date +
        ", " + std::to_string(threads) + " thread(s), " + doc["machine"].value("cpu", std::string("?")) +
        "; allocator: " + doc["machine"].value("allocator", std::string("?")) + "; subnormal floats " +
        doc["machine"].value("subnormals", std::string("?")) + ". Training: target subword tokens/s over " + std::to_string(steps) +
        " steps (forward, backward, clip, Adam) after 3 warm-up steps. Decoding: target tokens/s on the first " +
        std::to_string(sentences) + " test sentences with the models as they are after those steps (barely "
        "trained, so their output lengths differ: decoding speeds of trained models are in results/nmt.md), with "
        "the outputs' mean length (tokens/sentence, EOS included). rows/s at max length: the same sentences decoded "
        "again with EOS forbidden, so that every hypothesis runs to floor(a * source length + b) tokens and every "
        "cell advances the same rows; a row is one hypothesis advanced one token (cell steps, attention, output "
        "softmax), so rows/s is the decoders' speed whatever their outputs' lengths.\n\n";
    write_text_atomic(out + ".json", doc.dump(2) + "\n");
    write_text_atomic(out + ".md", head + md);
    write_text_atomic(out + ".csv", records_csv(rows, {"cell"}));
  }
  return 0;
}

}  // namespace twin::speed
