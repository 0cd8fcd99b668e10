// NER (tasks/ner): the column-file reader (CoNLL-2003 and two-column files, every malformed case an error
// naming file and line), the vocabulary's tag set per scheme, the batch's character slots, and a smoke run on a
// generated toy corpus that the tagger must learn (entity F1 on dev and test), with the predictions file it
// writes re-scored to the same F1; `ner tag` reproducing those predictions from the run folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "data/text.h"
#include "ner_data.h"
#include "ner_tag.h"
#include "ner_task.h"
#include "smoke_run.h"
#include "test_util.h"

namespace twin::ner {
namespace {

using namespace twin::test;   // the test helpers of test_util.h

TEST(NerData, ReadsConll2003AndTwoColumnFiles) {
  TempDir d("ner");
  write_file(d.str() + "/a.conll",
             "-DOCSTART- -X- -X- O\n\nEU NNP B-NP I-ORG\nrejects VBZ B-VP O\nGerman JJ B-NP I-MISC\n\n"
             "-DOCSTART- -X- -X- O\nPeter NNP B-NP I-PER\r\nBlackburn NNP I-NP I-PER\n");
  const auto s = read_conll(d.str() + "/a.conll");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].tokens, (std::vector<std::string>{"EU", "rejects", "German"}));
  EXPECT_EQ(s[0].tags, (std::vector<std::string>{"I-ORG", "O", "I-MISC"}));
  EXPECT_EQ(s[0].line, 3);
  EXPECT_EQ(s[1].tags, (std::vector<std::string>{"I-PER", "I-PER"}));
  // WNUT-17: token TAB tag, sentences also separated by a line holding only a TAB.
  write_file(d.str() + "/b.conll", "Empire\tB-location\nState\tI-location\n\t\n@paul\tO\n");
  const auto w = read_conll(d.str() + "/b.conll");
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].tags, (std::vector<std::string>{"B-location", "I-location"}));
  EXPECT_EQ(w[1].line, 4);
}

TEST(NerData, MalformedFilesAreErrorsNamingFileAndLine) {
  TempDir d("ner");
  const std::string p = d.str() + "/x.conll";
  auto expect = [&](const std::string& text, const std::string& what) {
    write_file(p, text);
    const std::string e = error_of([&] { read_conll(p); });
    EXPECT_TRUE(contains(e, what)) << "expected '" << what << "' in: " << e;
  };
  expect("a O\nb\n", "x.conll:2: one column");
  expect("a NN O\nb O\n", "x.conll:2: 2 columns, but the file's first token line (1) has 3");
  expect("a O\nb I-\n", "x.conll:2: tag 'I-'");
  expect("a O\nb PER\n", "x.conll:2: tag 'PER'");
  expect("a O\nb X-PER\n", "x.conll:2: tag 'X-PER'");
  expect("a O\n\xE4\xBA O\n", "x.conll:2: invalid UTF-8");
  expect("\n\t\n", "no sentences");
  NerDataConfig c;
  c.text.dir = d.str();
  const std::string e = error_of([&] { read_split(c, "train"); });
  EXPECT_TRUE(contains(e, "train.conll not found") && contains(e, "data_prep/ner.py")) << e;
}

TEST(NerData, TagSetPerSchemeAndCharacterSlots) {
  std::vector<Sentence> train = {{{"Ann", "met", "Bob"}, {"B-PER", "O", "B-PER"}, 1},
                                 {{"in", "New", "York"}, {"O", "I-LOC", "I-LOC"}, 5}};   // IOB1 input
  NerDataConfig c;
  c.scheme = TagScheme::kBioes;
  NerVocab v = build_vocab(train, c);
  EXPECT_EQ(v.tags, (std::vector<std::string>{"O", "B-LOC", "I-LOC", "E-LOC", "S-LOC", "B-PER", "I-PER", "E-PER",
                                              "S-PER"}));
  const NerBatch b = make_batch(train, {0, 1}, v, c, true);
  // Gold in BIOES: S-PER O S-PER / O B-LOC E-LOC.
  EXPECT_EQ(b.gold[0], (std::vector<int>{8, 0, 8}));
  EXPECT_EQ(b.gold[1], (std::vector<int>{0, 1, 3}));
  // Slots t*B + b with B = 2, all real: rows 0..5 in slot order; words "Ann" "in" "met" "New" "Bob" "York".
  EXPECT_EQ(b.slot_rows, (Ids{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(b.chars.lengths, (std::vector<int>{3, 2, 3, 3, 3, 4}));
  c.scheme = TagScheme::kBio;
  v = build_vocab(train, c);
  EXPECT_EQ(v.tags, (std::vector<std::string>{"O", "B-LOC", "I-LOC", "B-PER", "I-PER"}));
  // A shorter sentence: its padding slot points at the zero row (N = 4 real words).
  std::vector<Sentence> two = {{{"Ann", "met"}, {"B-PER", "O"}, 1}, {{"Bob"}, {"B-PER"}, 4}};
  const NerBatch p = make_batch(two, {0, 1}, v, c, false);
  EXPECT_EQ(p.slot_rows, (Ids{0, 1, 2, 3}));
  const NerBatch q = make_batch(two, {1, 0}, v, c, false);
  EXPECT_EQ(q.slot_rows, (Ids{0, 1, 3, 2}));   // slot (t=1, b=0) is padding: row N = 3
  EXPECT_TRUE(q.gold.empty());
  // Singletons ("met", "Bob" in `two`'s vocabulary: every word there is seen once) become <unk> only in
  // training batches, with probability data.singleton_unk.
  const NerVocab v2 = build_vocab(two, c);
  EXPECT_TRUE(v2.singleton[static_cast<size_t>(v2.words.find("Bob"))]);
  c.singleton_unk = 1.0;
  Rng rng(1);
  const std::int32_t unk = v2.words.id(kUnkWord);
  EXPECT_EQ(make_batch(two, {0}, v2, c, false, &rng).words.flat(), (Ids{unk, unk}));
  EXPECT_NE(make_batch(two, {0}, v2, c, false).words.flat(), (Ids{unk, unk}));
  c.singleton_unk = 0.0;
  EXPECT_NE(make_batch(two, {0}, v2, c, false, &rng).words.flat(), (Ids{unk, unk}));
  c.max_word_chars = 2;
  EXPECT_EQ(make_batch(two, {0}, v, c, false).chars.lengths, (std::vector<int>{2, 2}));
}

// A toy corpus: person names follow "mr" / "ms", place names follow "in" / "at" (two-token places start with
// "new"), everything else is O; names and places come from small lexicons, capitalised.
void write_toy(const std::string& dir, std::uint64_t seed) {
  Rng rng(seed);
  const std::vector<std::string> names = {"Ann", "Bob", "Cleo", "Dmitri", "Eve", "Farid", "Gus", "Hana"};
  const std::vector<std::string> places = {"Paris", "Oslo", "Lima", "Kyiv", "Rome", "Quito"};
  const std::vector<std::string> filler = {"the", "said", "went", "today", "and", "we", "saw", "it", "was"};
  auto pick = [&](const std::vector<std::string>& v) { return v[static_cast<size_t>(rng.uniform_int(0, static_cast<std::int64_t>(v.size()) - 1))]; };
  for (const auto& [split, n] : {std::pair<std::string, int>{"train", 300}, {"dev", 60}, {"test", 60}}) {
    std::string out;
    for (int s = 0; s < n; ++s) {
      const int parts = static_cast<int>(rng.uniform_int(2, 4));
      for (int k = 0; k < parts; ++k) {
        out += pick(filler) + "\tO\n";
        if (rng.uniform_int(0, 1) == 0) {
          out += std::string(rng.uniform_int(0, 1) ? "mr" : "ms") + "\tO\n" + pick(names) + "\tB-person\n";
        } else {
          out += std::string(rng.uniform_int(0, 1) ? "in" : "at") + "\tO\n";
          if (rng.uniform_int(0, 2) == 0) out += "New\tB-location\n" + pick(places) + "\tI-location\n";
          else out += pick(places) + "\tB-location\n";
        }
      }
      out += "\n";
    }
    write_file(dir + "/" + split + ".conll", out);
  }
}

TEST(NerSmoke, LearnsTheToyCorpusAndKeepsRescorablePredictions) {
  TempDir data("ner_data"), run("ner_run");
  write_toy(data.str(), 5);
  nlohmann::json config = {
      {"name", "smoke_ner"}, {"seed", 3}, {"out_dir", run.str()},
      {"data", {{"dir", data.str()}, {"protocol", "toy"}, {"batch_size", 10}}},
      {"model", {{"word_embed", 16}, {"char_embed", 8}, {"char_cell", {{"type", "atr"}, {"hidden", 8}}},
                 {"cell", {{"type", "atr"}, {"hidden", 16}}}, {"dropout", 0.0}, {"init_scale", 0.1}}},
      {"train", {{"max_epochs", 6}, {"log_every", 100}, {"optim", {{"name", "adam"}, {"lr", 0.01}, {"clip_norm", 5.0}}}}}};
  auto s = test::train_smoke<NerTask>(config, "smoke_ner.json", run.str());
  ASSERT_EQ(s.out.stop_reason, StopReason::kMaxEpochs);
  EXPECT_LT(test::tail_mean_loss(s.out.losses), s.out.losses.front() / 4) << "training loss did not drop";
  EXPECT_GE(s.out.best.primary, 0.95) << "dev entity F1 of the smoke model";
  const Metrics m = s.task->evaluate(Split::kTest);
  EXPECT_GE(m.primary, 0.95);
  EXPECT_GT(m.values["per_type"]["location"]["gold"].get<long>(), 0);
  nlohmann::json summary;
  s.task->finish(run.str(), summary);
  // The kept predictions (token gold predicted) give the reported F1 again.
  const auto rows = read_conll(run.str() + "/predictions/test.txt");
  SpanCounts c;
  std::vector<std::vector<std::string>> gold, pred;
  LineReader in(run.str() + "/predictions/test.txt");
  std::string line;
  gold.emplace_back();
  pred.emplace_back();
  while (in.next(line)) {
    const auto f = split_whitespace(line);
    if (f.empty()) {
      gold.emplace_back();
      pred.emplace_back();
      continue;
    }
    ASSERT_EQ(f.size(), 3u) << in.where();
    gold.back().push_back(f[1]);
    pred.back().push_back(f[2]);
  }
  for (size_t i = 0; i < gold.size(); ++i) c.add(gold[i], pred[i]);
  EXPECT_EQ(rows.size(), 60u);
  EXPECT_DOUBLE_EQ(c.to_json()["f1"].get<double>(), m.values["f1"].get<double>());
  EXPECT_EQ(summary["predictions"]["test"], "predictions/test.txt");
}

// model.freeze_embeddings (issue 52: GloVe rows frozen or fine-tuned): the word table leaves training exactly as
// it started (the same experiment built again, untrained, has the same seed and so the same initial table),
// while the character embeddings, which have no pretrained vectors, train.
TEST(NerSmoke, FrozenWordEmbeddingsDoNotTrain) {
  TempDir data("ner_data"), run("ner_run");
  write_toy(data.str(), 5);
  nlohmann::json config = {
      {"name", "smoke_ner"}, {"seed", 3}, {"out_dir", run.str()},
      {"data", {{"dir", data.str()}, {"protocol", "toy"}, {"batch_size", 10}}},
      {"model", {{"word_embed", 16}, {"freeze_embeddings", true}, {"char_embed", 8},
                 {"char_cell", {{"type", "atr"}, {"hidden", 8}}}, {"cell", {{"type", "atr"}, {"hidden", 16}}}}},
      {"train", {{"max_epochs", 2}, {"log_every", 100}, {"optim", {{"name", "adam"}, {"lr", 0.01}}}}}};
  auto trained = test::train_smoke<NerTask>(config, "smoke_ner.json", run.str());
  JsonReader root(config, "smoke_ner.json");
  const RunConfig rc = parse_run(root);
  JsonReader tr = root.child("train");
  const TrainConfig tc = parse_train(tr);
  NerTask fresh(root, rc, tc, CliArgs{});
  auto table = [](NerTask& t, const std::string& name) {
    for (const auto& p : t.params().all())
      if (p->name == name) return Mat(p->value);
    ADD_FAILURE() << "no parameter " << name;
    return Mat();
  };
  EXPECT_TRUE(table(*trained.task, "ner/word_emb/E") == table(fresh, "ner/word_emb/E"));
  EXPECT_FALSE(table(*trained.task, "ner/char_emb/E") == table(fresh, "ner/char_emb/E"));
}

// The predicted column of a run's predictions/<split>.txt (`token gold predicted` lines, a blank line after each
// sentence): one (token, tag) list per sentence.
std::vector<std::vector<std::pair<std::string, std::string>>> predicted_column(const std::string& path) {
  std::vector<std::vector<std::pair<std::string, std::string>>> out(1);
  for (const std::string& line : read_lines(path)) {
    const auto f = split_whitespace(line);
    if (f.empty()) {
      out.emplace_back();
      continue;
    }
    out.back().emplace_back(f.front(), f.back());
  }
  if (out.back().empty()) out.pop_back();
  return out;
}

// `ner tag` (issue 29): a run trained through the command line keeps its vocabularies, and `ner tag <run>` on
// its test sentences (one line each, empty lines between) reproduces the run's predictions/test.txt token for
// token, in BIO although the CRF predicts BIOES, with an empty sentence for each empty line; a run without the
// vocabulary files rebuilds them identically; bad input is exit 2 naming the line, with nothing written.
TEST(NerCli, TagCommandReproducesTheRunsTestPredictions) {
  TempDir data("ner_data"), run("ner_run"), io("ner_io");
  write_toy(data.str(), 5);
  const nlohmann::json config = {
      {"name", "tag_ner"}, {"seed", 3}, {"threads", 1}, {"out_dir", run.str()},
      {"data", {{"dir", data.str()}, {"protocol", "toy"}, {"batch_size", 10}}},
      {"model", {{"word_embed", 16}, {"char_embed", 8}, {"char_cell", {{"type", "atr"}, {"hidden", 8}}},
                 {"cell", {{"type", "atr"}, {"hidden", 16}}}, {"dropout", 0.0}, {"init_scale", 0.1}}},
      {"train", {{"max_epochs", 2}, {"log_every", 100}, {"optim", {{"name", "adam"}, {"lr", 0.01}, {"clip_norm", 5.0}}}}}};
  std::ofstream(io.file("exp.json")) << config.dump(2);
  const test::CliResult trained = test::run_task<NerTask>("ner", io.file("exp.json"));
  ASSERT_EQ(trained.code, 0) << trained.err;
  for (const char* f : {"vocab.words.txt", "vocab.chars.txt", "tags.txt"})
    EXPECT_TRUE(std::filesystem::exists(run.file(f))) << f;
  const auto expected = predicted_column(run.file("predictions/test.txt"));
  const auto test_split = read_conll(data.file("test.conll"));
  ASSERT_EQ(expected.size(), test_split.size());
  std::string input;
  for (size_t i = 0; i < test_split.size(); ++i) {
    for (size_t t = 0; t < test_split[i].tokens.size(); ++t) input += (t ? "  " : "") + test_split[i].tokens[t];
    input += i == 10 ? "\n\n" : "\n";   // an empty sentence after the 11th
  }
  std::ofstream(io.file("in.txt")) << input << "\n";   // and one at the end
  const test::CliResult tagged =
      test::run_predict_mode("ner tag", tag_main, {"tag", run.path.string(), "--input", io.file("in.txt"), "--output", io.file("out.txt")});
  ASSERT_EQ(tagged.code, 0) << tagged.err;
  std::vector<std::vector<std::pair<std::string, std::string>>> got(1);
  for (const std::string& line : read_lines(io.file("out.txt"))) {
    if (line.empty()) {
      got.emplace_back();
      continue;
    }
    const size_t tab = line.find('\t');
    ASSERT_NE(tab, std::string::npos) << line;
    got.back().emplace_back(line.substr(0, tab), line.substr(tab + 1));
  }
  ASSERT_TRUE(got.back().empty());   // the output ends with a sentence's blank line
  got.pop_back();
  ASSERT_EQ(got.size(), expected.size() + 2);   // one sentence per input line
  EXPECT_TRUE(got[11].empty() && got.back().empty()) << "the empty lines give empty sentences";
  got.erase(got.begin() + 11);
  got.pop_back();
  long entities = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(got[i], expected[i]) << "sentence " << i + 1;
    for (const auto& [token, tag] : got[i]) {
      EXPECT_TRUE(tag == "O" || tag == "B-person" || tag == "I-person" || tag == "B-location" || tag == "I-location")
          << "tag '" << tag << "' is not a BIO tag of the training types";
      entities += tag[0] == 'B';
    }
  }
  EXPECT_GT(entities, 30) << "the model tags entities (60 test sentences hold about 150)";
  // A run that predates the vocabulary files: rebuilt from the training split, the same tags.
  for (const char* f : {"vocab.words.txt", "vocab.chars.txt", "tags.txt"}) std::filesystem::remove(run.file(f));
  const Tagger tagger = Tagger::load(run.path.string());
  std::vector<std::vector<std::string>> sentences;
  for (const Sentence& s : test_split) sentences.push_back(s.tokens);
  const auto rebuilt = tagger.tag(sentences, eval_batching(7));
  for (size_t i = 0; i < expected.size(); ++i)
    for (size_t t = 0; t < expected[i].size(); ++t) EXPECT_EQ(rebuilt[i][t], expected[i][t].second) << i << ":" << t;
  // Bad input: exit 2, one error line naming the line, nothing written.
  std::ofstream(io.file("bad.txt")) << "Ann went to Oslo\nmr Bob\xff\n";
  const test::CliResult bad = test::run_predict_mode(
      "ner tag", tag_main, {"tag", run.path.string(), "--input", io.file("bad.txt"), "--output", io.file("bad_out.txt")});
  EXPECT_EQ(bad.code, 2);
  EXPECT_PRED2(contains, bad.err, "ner tag: error: " + io.file("bad.txt") + ":2: invalid UTF-8 at byte 6");
  EXPECT_FALSE(std::filesystem::exists(io.file("bad_out.txt")));
  const test::CliResult not_a_run = test::run_predict_mode("ner tag", tag_main, {"tag", data.str()});
  EXPECT_EQ(not_a_run.code, 2);
  EXPECT_PRED2(contains, not_a_run.err, "is not a run folder of the ner task");
}

}  // namespace
}  // namespace twin::ner
