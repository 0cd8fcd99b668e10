// NMT task: data reading and its errors, a smoke train + translate run on the generated reversal task that
// must reach high BLEU, batched decoding equal to one sentence at a time, ensembles and checkpoint averaging
// measured against the single model, and the translate/average command lines' bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "corpus/subword.h"
#include "data/text.h"
#include "model/nmt_gates.h"
#include "nmt_cli.h"
#include "nmt_synthetic.h"
#include "nmt_task.h"
#include "smoke_run.h"
#include "test_util.h"
#include "train/snapshots.h"

namespace twin::nmt {
namespace {

namespace fs = std::filesystem;
using namespace twin::test;   // the test helpers of test_util.h

// A generated corpus and its subword model, for the data tests: they need no trained model.
struct Corpus {
  TempDir dir{"nmt_corpus"};
  Corpus() { write_synthetic_parallel(dir.str(), 5); }
};

const TempDir& corpus() {
  static Corpus c;
  return c.dir;
}

// The smoke model, trained on a corpus like corpus()'s. ctest runs each test in its own process, and each test
// that trained the model again took about 20 s under the sanitizers. So under ctest, NmtSmoke (the setup of the
// ctest fixture nmt_smoke, tests/CMakeLists.txt) trains it once into $TW_NMT_SMOKE_DIR/{data,run}, and the tests
// that only need a trained model (smoke_run()) read it from there. Run in one process (twin_tests alone, without
// that variable), they share the one model trained in it.
const char* shared_smoke_dir() {
  const char* d = std::getenv("TW_NMT_SMOKE_DIR");
  return d && *d ? d : nullptr;
}

struct SmokeRun {
  std::string data, run;   // the generated corpus with its subword model; the finished run folder
};

struct Trained : SmokeRun {
  TempDir tmp{"nmt_smoke"};   // holds data/ and run/ when no shared folder is given
  std::unique_ptr<NmtTask> task;
  TrainOutcome out;
  Trained() {
    const std::string root = shared_smoke_dir() ? shared_smoke_dir() : tmp.str();
    data = root + "/data";
    run = root + "/run";
    for (const auto& d : {data, run}) {   // only our two folders: the variable may name a folder with more in it
      fs::remove_all(d);
      fs::create_directories(d);
    }
    write_synthetic_parallel(data, 5);
    const nlohmann::json config = test::smoke_config("nmt_atr.json", data, run);
    auto r = test::train_smoke<NmtTask>(config, "smoke/nmt_atr.json", run);
    task = std::move(r.task);
    out = std::move(r.out);
  }
};

Trained& trained() {
  static Trained t;
  return t;
}

// The finished smoke run for the tests that read it: the fixture's when ctest trained it, else trained here.
const SmokeRun& smoke_run() {
  static const SmokeRun shared = [] {
    SmokeRun s;
    if (const char* d = shared_smoke_dir()) {
      s = {std::string(d) + "/data", std::string(d) + "/run"};
      TW_CHECK(fs::exists(s.run + "/model.best.bin"), "no NMT smoke model in ", s.run,
               ": NmtSmoke.TrainingOnTheReversalTaskReachesHighBleu trains it (ctest runs it first, as the setup "
               "of the fixture nmt_smoke)");
    }
    return s;
  }();
  if (shared.run.empty()) return trained();
  return shared;
}

TEST(NmtSmoke, TrainingOnTheReversalTaskReachesHighBleu) {
  Trained& s = trained();
  ASSERT_EQ(s.out.stop_reason, StopReason::kMaxEpochs);
  const auto& L = s.out.losses;
  ASSERT_GE(L.size(), 100u);
  EXPECT_LT(L.back(), L.front() / 4) << "training loss did not drop";
  EXPECT_GE(s.out.best.primary, 90.0) << "dev BLEU (greedy) of the smoke model";
  const Metrics test = s.task->evaluate(Split::kTest);   // beam 4
  EXPECT_GE(test.primary, 90.0);
  EXPECT_EQ(list_snapshots(s.run).size(), 3u);    // keep_snapshots: 3 of the 8 epochs' snapshots kept
}

std::vector<std::string> test_sources(const SmokeRun& s) {
  return read_lines(s.data + "/test.tok.src");
}

TEST(NmtDecode, BatchedEqualsOneSentenceAtATimeAndBeamOneEqualsGreedy) {
  const SmokeRun& s = smoke_run();
  auto model = load_model(s.run);
  const auto lines = test_sources(s);
  SearchConfig sc = model->decode.search;
  sc.beam = 4;
  const auto batched = translate_corpus({model->model.get()}, *model->vocab.src, *model->vocab.tgt, lines, sc, 50);
  const auto single = translate_corpus({model->model.get()}, *model->vocab.src, *model->vocab.tgt, lines, sc, 1);
  ASSERT_EQ(batched.size(), lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(batched[i].text, single[i].text) << "line " << i;
    EXPECT_NEAR(batched[i].nbest[0].score, single[i].nbest[0].score, 1e-4) << "line " << i;
  }
  // Beam 1 through beam_search (nbest 1 takes the greedy path in translate_corpus) equals greedy decoding.
  SearchConfig b1 = sc;
  b1.beam = 1;
  const auto greedy = translate_corpus({model->model.get()}, *model->vocab.src, *model->vocab.tgt, lines, b1, 50);
  auto scorer_lines = std::vector<std::string>(lines.begin(), lines.begin() + 10);
  std::vector<Ids> ids;
  for (const auto& l : scorer_lines) {
    ids.push_back(model->vocab.src->encode(l));
    ids.back().push_back(kEos);
  }
  NmtScorer scorer(*model->model, ids);
  const auto beam1 = beam_search(scorer, b1);
  for (size_t i = 0; i < scorer_lines.size(); ++i)
    EXPECT_EQ(model->vocab.tgt->decode(beam1[i][0].tokens), greedy[i].text) << "line " << i;
}

// DecodeStats counts the decoder's work: greedy decoding advances one row per emitted piece, EOS included, and
// none after a sentence's last piece (a hypothesis stopped by the max-length rule has no EOS: one row fewer);
// beam search advances every live hypothesis, at most beam rows per sentence a step.
TEST(NmtDecode, StatsCountTheRowsTheDecoderAdvanced) {
  auto model = load_model(smoke_run().run);
  const auto lines = test_sources(smoke_run());
  // The smoke model's translations of `lines` in batches of 7, counted into `st`.
  const auto translate = [&](const SearchConfig& c, DecodeStats& st) {
    return translate_corpus({model->model.get()}, *model->vocab.src, *model->vocab.tgt, lines, c, 7, &st);
  };
  SearchConfig g = model->decode.search;
  g.beam = 1;
  DecodeStats gs;
  const auto greedy = translate(g, gs);
  long tokens = 0, unfinished = 0, longest = 0;
  for (const Translation& t : greedy) {
    tokens += static_cast<long>(t.nbest[0].tokens.size()) + 1;
    unfinished += t.nbest[0].finished ? 0 : 1;
    longest = std::max(longest, static_cast<long>(t.nbest[0].tokens.size()) + (t.nbest[0].finished ? 1 : 0));
  }
  EXPECT_EQ(gs.target_tokens, tokens);
  EXPECT_EQ(gs.sentences, static_cast<long>(lines.size()));
  EXPECT_EQ(gs.decoder_rows, tokens - unfinished);
  EXPECT_GE(gs.decoder_steps, longest);   // each batch of 7 runs until its longest hypothesis ends
  EXPECT_LE(gs.decoder_steps, longest * static_cast<long>((lines.size() + 6) / 7));
  SearchConfig b = g;
  b.beam = 4;
  DecodeStats bs;
  translate(b, bs);
  EXPECT_GE(bs.decoder_rows, bs.decoder_steps);
  EXPECT_LE(bs.decoder_rows, 4 * 7 * bs.decoder_steps);
  EXPECT_GT(bs.decoder_rows, gs.decoder_rows);   // the smoke model is not so sure that 4 beams collapse to 1
  // fixed_length: EOS forbidden, every sentence decoded to max_len = floor(a * source length + b): greedy advances
  // exactly the sum of the max lengths (counted here from the sources), beam 4 four rows a step after the first.
  long max_rows = 0, beam_rows = 0;
  for (const std::string& l : lines) {
    const double source_length = static_cast<double>(model->vocab.src->encode(l).size());
    const long m = static_cast<long>(std::floor(g.max_len_a * source_length + g.max_len_b));
    max_rows += m;
    beam_rows += 1 + 4 * (m - 1);
  }
  g.fixed_length = true;
  DecodeStats fs;
  const auto fixed = translate(g, fs);
  EXPECT_EQ(fs.decoder_rows, max_rows);
  for (const Translation& t : fixed) EXPECT_FALSE(t.nbest[0].finished);
  b.fixed_length = true;
  DecodeStats fb;
  translate(b, fb);
  EXPECT_EQ(fb.decoder_rows, beam_rows);
}

TEST(NmtDecode, EnsembleOfTheSameModelTwiceEqualsTheModel) {
  const SmokeRun& s = smoke_run();
  auto a = load_model(s.run), b = load_model(s.run);
  const auto lines = test_sources(s);
  SearchConfig sc = a->decode.search;
  const auto one = translate_corpus({a->model.get()}, *a->vocab.src, *a->vocab.tgt, lines, sc, 50);
  const auto two = translate_corpus({a->model.get(), b->model.get()}, *a->vocab.src, *a->vocab.tgt, lines, sc, 50);
  for (size_t i = 0; i < lines.size(); ++i) EXPECT_EQ(one[i].text, two[i].text) << "line " << i;
}

TEST(NmtAverage, AveragingSnapshotsGivesTheMeanOfTheirParameters) {
  const SmokeRun& s = smoke_run();
  const auto snaps = list_snapshots(s.run);
  ASSERT_EQ(snaps.size(), 3u);
  TempDir out("avg");
  const std::string avg = out.str() + "/avg.bin";
  std::vector<std::string> argv_s = {"average", s.run, "--last", "2", "--out", avg};
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  ASSERT_EQ(average_main(static_cast<int>(argv.size()), argv.data()), 0);
  auto m = load_model(avg), x = load_model(snaps[1]), y = load_model(snaps[2]);
  for (const auto& p : m->store->all()) {
    const Mat want = (x->store->get(p->name).value + y->store->get(p->name).value) / Real(2);
    EXPECT_LT((p->value - want).cwiseAbs().maxCoeff(), 1e-6) << p->name;
  }
}

TEST(NmtGates, DecoderGateStatisticsAndTheirUnrolledContributions) {
  const SmokeRun& s = smoke_run();
  auto m = load_model(s.run);
  Parallel test = read_parallel(s.data + "/test.tok.src", s.data + "/test.tok.tgt", *m->vocab.src,
                                *m->vocab.tgt, m->data, false, nullptr);
  const nlohmann::json j = decoder_gate_statistics(*m->model, test, *m->vocab.tgt, 3, 7);
  ASSERT_TRUE(j.contains("cell1") && j.contains("cell2") && j.contains("dependencies")) << j.dump().substr(0, 300);
  EXPECT_EQ(j["cell1"]["pair"], nlohmann::json({"i", "f"}));
  const double r = j["cell1"]["pearson_r_units"].get<double>();
  EXPECT_TRUE(r >= -1 && r <= 1);
  // Position 0 is seen by every sentence; the counts never grow with the position.
  const auto count = j["cell1"]["count"].get<std::vector<double>>();
  EXPECT_EQ(count[0], static_cast<double>(test.src.size()));
  for (size_t t = 1; t < count.size(); ++t) EXPECT_LE(count[t], count[t - 1]);
  ASSERT_EQ(j["dependencies"].size(), 3u);
  const auto& d = j["dependencies"][0];
  const auto w = d["weights"].get<std::vector<std::vector<double>>>();
  ASSERT_EQ(w.size(), d["inputs"].size());
  EXPECT_EQ(d["inputs"][0], "<s>");
  for (size_t t = 0; t < w.size(); ++t)
    for (size_t k = 0; k < w.size(); ++k) {
      if (k > t) EXPECT_EQ(w[t][k], 0.0) << "a later word cannot reach step " << t;
      else EXPECT_TRUE(w[t][k] > 0 && w[t][k] < 1) << t << "," << k;
    }
}

TEST(NmtData, MisalignedFilesAreAnErrorNamingBothCounts) {
  TempDir d("mis");
  write_file(d.str() + "/a.src", "a0 b1\nc0\n");
  write_file(d.str() + "/a.tgt", "x0\n");
  NmtDataConfig c;
  Subword w(corpus().str() + "/bpe/joint.model");
  const std::string e = error_of([&] { read_parallel(d.str() + "/a.src", d.str() + "/a.tgt", w, w, c, false, nullptr); });
  EXPECT_TRUE(contains(e, "misaligned") && contains(e, "has 2 lines") && contains(e, "has 1")) << e;
}

TEST(NmtData, TrainingDropsEmptyAndOverlongPairsAndSaysWhich) {
  TempDir d("flt");
  write_file(d.str() + "/a.src", "a0 b1\n\nc0\na0 a0 a0 a0 a0 a0\n");
  write_file(d.str() + "/a.tgt", "x0\ny1\n\nz0\n");
  Subword w(corpus().str() + "/bpe/joint.model");
  NmtDataConfig c;
  c.max_ratio = 3.0;
  FilterReport rep;
  const Parallel p = read_parallel(d.str() + "/a.src", d.str() + "/a.tgt", w, w, c, true, &rep);
  EXPECT_EQ(rep.read, 4);
  EXPECT_EQ(rep.kept, 1);
  EXPECT_EQ(rep.empty, 2);
  EXPECT_EQ(rep.bad_ratio, 1);
  EXPECT_EQ(p.line, std::vector<long>{1});
  EXPECT_TRUE(contains(rep.str(), "lines 2 3")) << rep.str();
  // Evaluation keeps every line (an empty source is EOS alone).
  const Parallel all = read_parallel(d.str() + "/a.src", d.str() + "/a.tgt", w, w, c, false, nullptr);
  EXPECT_EQ(all.src.size(), 4u);
  EXPECT_EQ(all.src[1], Ids{kEos});
}

TEST(NmtData, SubwordRoundTripIsLosslessOnTheRealValidationSet) {
  const char* raw = std::getenv("TW_NMT_DATA");
  const std::string dir = raw ? raw : std::string(TW_SOURCE_DIR) + "/data/multi30k";
  if (!fs::exists(dir + "/bpe8000/joint.model"))
    GTEST_SKIP() << "no " << dir << "/bpe8000/joint.model (run python3 data_prep/nmt.py to prepare Multi30k)";
  Subword sp(dir + "/bpe8000/joint.model");
  for (const char* lang : {"en", "de"}) {
    const auto lines = read_lines(dir + "/val.tok." + lang);
    ASSERT_EQ(lines.size(), 1014u);
    for (size_t i = 0; i < lines.size(); ++i) ASSERT_EQ(sp.decode(sp.encode(lines[i])), lines[i]) << lang << " " << i;
  }
}

TEST(NmtCli, BadInputGivesClearErrors) {
  const SmokeRun& s = smoke_run();
  auto run = [](std::vector<std::string> args) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    return error_of([&] { translate_main(static_cast<int>(argv.size()), argv.data()); });
  };
  EXPECT_TRUE(contains(run({"translate"}), "no model given"));
  EXPECT_TRUE(contains(run({"translate", "/nonexistent/run"}), "no model at /nonexistent/run"));
  EXPECT_TRUE(contains(run({"translate", s.run, "--beam", "0"}), "--beam expects an integer in [1, 10000], got '0'"));
  EXPECT_TRUE(contains(run({"translate", s.run, "--frobnicate"}), "unknown option '--frobnicate'"));
  EXPECT_TRUE(contains(run({"translate", s.run, "--split", "val", "--input", "x"}), "not both"));
  // A model whose subword model has a different vocabulary than its embeddings.
  TempDir other("otherbpe");
  write_file(other.str() + "/t.txt", "lorem ipsum dolor sit amet consectetur adipiscing elit\n");
  learn_subword_model({other.str() + "/t.txt"}, other.str() + "/m", 40);
  auto model = load_model(s.run);
  Subword w(other.str() + "/m.model");
  const std::string e = error_of([&] {
    translate_corpus({model->model.get()}, w, w, {"a0"}, model->decode.search, 1);
  });
  EXPECT_TRUE(contains(e, "use the subword model the run was trained with")) << e;
  EXPECT_TRUE(contains(error_of([] { Subword("/nonexistent/bpe.model"); }), "subword model /nonexistent/bpe.model not found"));
}

}  // namespace
}  // namespace twin::nmt
