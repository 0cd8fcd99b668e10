// SNLI data: reading a prepared split and its errors (named by file and line), labels, the data config,
// the vocabulary, pretrained embeddings (the loader shared with classify), batching, and (when
// data_prep/snli.py has been run) the real inhouse folder against its prep.json.
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "nn/embedding.h"
#include "nn/text_embeddings.h"
#include "snli_data.h"
#include "test_util.h"

namespace twin::snli {
namespace {

namespace fs = std::filesystem;
using namespace twin::test;   // the test helpers of test_util.h

using Words = std::vector<std::string>;

TEST(SnliData, LabelsRoundTripAndUnknownNamesWhere) {
  for (int i = 0; i < kNumLabels; ++i) EXPECT_EQ(label_id(label_name(i), "x"), i);
  EXPECT_EQ(label_id("contradiction", "x"), 2);
  EXPECT_TRUE(contains(error_of([] { label_id("-", "f.tsv:7"); }), "f.tsv:7: unknown label '-'"));
  EXPECT_TRUE(contains(error_of([] { label_id("Entailment", "f.tsv:3"); }), "f.tsv:3"));
  EXPECT_NE(error_of([] { label_name(3); }), twin::test::kNoErrorThrown);
}

TEST(SnliData, ConfigParsesDefaultsAndRejectsUnknownKeys) {
  JsonReader r(nlohmann::json{{"dir", "d"}, {"protocol", "p"}, {"lowercase", true}, {"max_vocab", 100}}, "x.json",
               "data");
  const SnliDataConfig c = parse_snli_data(r);
  EXPECT_EQ(c.dir, "d");
  EXPECT_TRUE(c.lowercase);
  EXPECT_EQ(c.max_vocab, 100);
  EXPECT_EQ(c.batch_size, 128);
  EXPECT_EQ(to_json(c)["embeddings"], "");
  const nlohmann::json resolved = to_json(c);
  std::vector<std::string> keys;   // config.resolved.json's data keys (sorted by nlohmann::json)
  for (const auto& [k, value] : resolved.items()) keys.push_back(k);
  EXPECT_EQ(keys, (Words{"batch_size", "batch_tokens", "dev", "dir", "embeddings", "eval_batch_size",
                         "eval_batch_tokens", "lowercase", "max_vocab", "maxi_batch", "min_count", "protocol", "test",
                         "train"}));
  JsonReader bad(nlohmann::json{{"dir", "d"}, {"protocol", "p"}, {"lowercse", true}}, "x.json", "data");
  EXPECT_TRUE(contains(error_of([&] { parse_snli_data(bad); }), "lowercse"));
}

TEST(SnliData, ReadsASplitInOrder) {
  TempDir d("snli");
  write_file(d.file("train.tsv"),
             "entailment\tA man sleeps .\tA person rests .\r\n"
             "neutral\tTwo  dogs\tThe dogs play\n"
             "contradiction\tA cat\tNo cat");  // no final newline
  SnliDataConfig c = data_config_in<SnliDataConfig>(d.str());
  auto s = read_split(c, "train");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].premise, (Words{"A", "man", "sleeps", "."}));
  EXPECT_EQ(s[0].hypothesis, (Words{"A", "person", "rests", "."}));
  EXPECT_EQ(s[0].label, 0);
  EXPECT_EQ(s[1].premise, (Words{"Two", "dogs"}));
  EXPECT_EQ(s[1].label, 1);
  EXPECT_EQ(s[2].hypothesis, (Words{"No", "cat"}));
  EXPECT_EQ(s[2].label, 2);
  c.lowercase = true;
  s = read_split(c, "train");
  EXPECT_EQ(s[0].premise, (Words{"a", "man", "sleeps", "."}));
}

TEST(SnliData, BadFilesAreErrorsNamingFileAndLine) {
  TempDir d("snli");
  const SnliDataConfig c = data_config_in<SnliDataConfig>(d.str());
  const std::string good = "neutral\ta b\tc d\n";
  auto expect = [&](const std::string& second_line, const std::string& what) {
    write_file(d.file("dev.tsv"), good + second_line);
    const std::string e = error_of([&] { read_split(c, "dev"); });
    EXPECT_TRUE(contains(e, "dev.tsv:2: " + what)) << "expected 'dev.tsv:2: " << what << "' in: " << e;
  };
  expect("neutral\ta b\n", "2 tab-separated field(s), expected 3");
  expect("neutral\ta b\tc\td\n", "4 tab-separated field(s), expected 3");
  expect("-\ta b\tc d\n", "unknown label '-'");
  expect("maybe\ta b\tc d\n", "unknown label 'maybe'");
  expect("neutral\t  \tc d\n", "empty premise");
  expect("neutral\ta b\t\n", "empty hypothesis");
  expect("neutral\ta \xC3\x28 b\tc d\n", "invalid UTF-8 at byte 10");
  write_file(d.file("dev.tsv"), "");
  EXPECT_TRUE(contains(error_of([&] { read_split(c, "dev"); }), "no pairs"));
  const std::string e = error_of([&] { read_split(c, "test"); });
  EXPECT_TRUE(contains(e, "test.tsv not found") && contains(e, "python3 data_prep/snli.py")) << e;
}

TEST(SnliData, VocabularyHasSpecialsFirstAndHonoursMinCount) {
  std::vector<Pair> train(2);
  train[0] = {{"a", "dog", "runs"}, {"a", "dog"}, 0};
  train[1] = {{"the", "cat"}, {"a", "cat", "sleeps"}, 1};
  SnliDataConfig c;
  Vocab v = build_vocab(train, c);
  EXPECT_EQ(v.word(0), "<pad>");
  EXPECT_EQ(v.word(1), "<unk>");
  EXPECT_EQ(v.word(2), "a");  // count 3
  EXPECT_EQ(v.size(), 2 + 6);  // a dog runs the cat sleeps
  EXPECT_EQ(v.id("zebra"), kUnkId);
  c.min_count = 2;
  v = build_vocab(train, c);
  EXPECT_EQ(v.size(), 2 + 3);  // a, dog, cat
  EXPECT_TRUE(v.contains("cat") && v.contains("dog") && !v.contains("runs"));
  c.min_count = 1;
  c.max_vocab = 4;
  EXPECT_EQ(build_vocab(train, c).size(), 4);
}

// The pretrained-embeddings step both tasks share (nn/text_embeddings.h load_text_embeddings); the GloVe
// format itself (header, tabs, CRLF, duplicates, words with spaces, bad numbers) is Embedding::load_glove's,
// tested in test_nn.cc; the UTF-8 check of every word is this step's.
TEST(SnliData, PretrainedEmbeddingsSetRowsOfVocabularyWords) {
  TempDir d("snli");
  std::vector<Pair> train(1);
  train[0] = {{"the", "dog"}, {"a", "cat"}, 0};
  SnliDataConfig c;
  const Vocab v = build_vocab(train, c);
  ParamStore store;
  Embedding emb(store, "emb", v.size(), 3, init::constant(7));
  EXPECT_EQ(load_text_embeddings(c, v, emb), 0);   // "": random initialisation, nothing read
  write_file(d.file("g.txt"), "the 0.5 -1 2e-1\nzebra 1 2 3\ncat 1 2 3\n");
  c.embeddings = d.file("g.txt");
  EXPECT_EQ(load_text_embeddings(c, v, emb), 2);
  const Mat& table = emb.table().value;
  const int the = v.find("the"), cat = v.find("cat"), dog = v.find("dog");
  EXPECT_FLOAT_EQ(table(the, 0), 0.5f);
  EXPECT_FLOAT_EQ(table(the, 2), 0.2f);
  EXPECT_FLOAT_EQ(table(cat, 1), 2.0f);
  EXPECT_FLOAT_EQ(table(dog, 0), 7.0f);   // not in the file: keeps its initial value
  EXPECT_FLOAT_EQ(table(kUnkId, 1), 7.0f);

  write_file(d.file("bad.txt"), "the 1 2 3\ncat 1 2\n");
  c.embeddings = d.file("bad.txt");
  std::string e = error_of([&] { load_text_embeddings(c, v, emb); });
  EXPECT_TRUE(contains(e, d.file("bad.txt")) && contains(e, "line 2") && contains(e, "has 2 values, expected 3"))
      << e;
  write_file(d.file("latin1.txt"), "the 1 2 3\ncaf\xe9 1 2 3\n");   // a word outside the vocabulary, not UTF-8
  c.embeddings = d.file("latin1.txt");
  e = error_of([&] { load_text_embeddings(c, v, emb); });
  EXPECT_TRUE(contains(e, "pretrained embeddings '" + d.file("latin1.txt") + "' line 2: invalid UTF-8 at byte 3 "
                          "of the word (0xE9")) << e;
  // Vectors that match no vocabulary word (cased words, a lowercased corpus's vocabulary here) are a mismatch.
  write_file(d.file("cased.txt"), "The 1 2 3\nCat 1 2 3\n");
  c.embeddings = d.file("cased.txt");
  e = error_of([&] { load_text_embeddings(c, v, emb); });
  EXPECT_TRUE(contains(e, "embeddings file " + d.file("cased.txt") + ": none of its 2 vector lines is a word of the "
                          "vocabulary (" + std::to_string(v.size()) + " words, data.lowercase false)")) << e;
  write_file(d.file("empty.txt"), "");   // an empty file too
  c.embeddings = d.file("empty.txt");
  EXPECT_TRUE(contains(error_of([&] { load_text_embeddings(c, v, emb); }), "none of its 0 vector lines")) << e;
  c.embeddings = d.file("none.txt");
  e = error_of([&] { load_text_embeddings(c, v, emb); });
  EXPECT_TRUE(contains(e, "embeddings file " + d.file("none.txt") + " not found (data.embeddings: a GloVe text "
                       "file such as glove.840B.300d.txt, or \"\" for random initialisation)"))
      << e;
  c.embeddings = d.file("g.txt");
  Embedding wrong(store, "wrong", v.size() + 1, 3, init::constant(0));
  EXPECT_TRUE(contains(error_of([&] { load_text_embeddings(c, v, wrong); }), "one row per vocabulary word"));
}

TEST(SnliData, BatchesCoverEveryPairOnceWithLabelsAndLengths) {
  std::vector<Pair> data;
  Rng gen(5);
  for (int i = 0; i < 203; ++i) {
    Pair p;
    const int lp = 1 + static_cast<int>(gen.uniform_int(0, 20)), lh = 1 + static_cast<int>(gen.uniform_int(0, 9));
    for (int k = 0; k < lp; ++k) p.premise.push_back("w" + std::to_string(gen.uniform_int(0, 30)));
    for (int k = 0; k < lh; ++k) p.hypothesis.push_back("w" + std::to_string(gen.uniform_int(0, 30)));
    p.label = i % kNumLabels;
    data.push_back(p);
  }
  const Vocab v = build_vocab(data, SnliDataConfig{});
  for (bool shuffle : {true, false}) {
    Rng rng(3);
    std::vector<int> seen(data.size(), 0);
    for (const auto& idx : batches_by_length(data, pair_length,
        {.batch_size = 16, .maxi_batch = 3, .shuffle = shuffle}, rng)) {
      ASSERT_LE(idx.size(), 16u);
      const SnliBatch b = make_batch(data, idx, v);
      ASSERT_EQ(b.size(), static_cast<Index>(idx.size()));
      ASSERT_EQ(b.labels.size(), idx.size());
      for (size_t j = 0; j < idx.size(); ++j) {
        const Pair& p = data[static_cast<size_t>(idx[j])];
        ++seen[static_cast<size_t>(idx[j])];
        EXPECT_EQ(b.labels[j], p.label);
        EXPECT_EQ(b.premise.lengths[j], static_cast<int>(p.premise.size()));
        EXPECT_EQ(b.hypothesis.lengths[j], static_cast<int>(p.hypothesis.size()));
        const auto col = static_cast<Index>(j);
        EXPECT_EQ(b.premise.ids(0, col), v.id(p.premise[0]));
        EXPECT_EQ(b.hypothesis.ids(static_cast<Index>(p.hypothesis.size()) - 1, col), v.id(p.hypothesis.back()));
        if (static_cast<Index>(p.premise.size()) < b.premise.steps()) {
          EXPECT_EQ(b.premise.ids(static_cast<Index>(p.premise.size()), col), kPadId);
        }
      }
    }
    for (size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], 1) << "pair " << i << " shuffle " << shuffle;
  }
}

TEST(SnliData, PreparedInhouseFolderMatchesItsPrepJson) {
  const std::string dir = std::string(TW_SOURCE_DIR) + "/data/snli/inhouse";
  if (!fs::exists(dir + "/prep.json"))
    GTEST_SKIP() << "no " << dir << "/prep.json (run python3 data_prep/snli.py to prepare SNLI)";
  nlohmann::json prep;
  std::ifstream(dir + "/prep.json") >> prep;
  SnliDataConfig c = data_config_in<SnliDataConfig>(dir);
  for (const char* split : {"train", "dev", "test"}) {
    const auto pairs = read_split(c, split);
    const auto& s = prep["splits"][split];
    ASSERT_EQ(static_cast<long>(pairs.size()), s["pairs"].get<long>()) << split;
    std::array<long, kNumLabels> labels{};
    long prem = 0, hyp = 0;
    for (const Pair& p : pairs) {
      ++labels[static_cast<size_t>(p.label)];
      prem += static_cast<long>(p.premise.size());
      hyp += static_cast<long>(p.hypothesis.size());
    }
    for (int l = 0; l < kNumLabels; ++l)
      EXPECT_EQ(labels[static_cast<size_t>(l)], s["labels"][label_name(l)].get<long>()) << split;
    EXPECT_EQ(prem, s["premise_tokens"]["total"].get<long>()) << split;
    EXPECT_EQ(hyp, s["hypothesis_tokens"]["total"].get<long>()) << split;
  }
  EXPECT_EQ(prep["splits"]["dev"]["pairs"], 9842);  // the published SNLI 1.0 counts
  EXPECT_EQ(prep["splits"]["test"]["pairs"], 9824);
}

}  // namespace
}  // namespace twin::snli
