// Sentence classification data (tasks/classify/classify_data.h): reading `<label> <tokens>` lines and the
// errors on malformed ones (named by file and line: missing label, non-integer label, unknown label, empty text,
// invalid UTF-8), counting labels, the data config, the vocabulary with min_count, batching, and (when
// data_prep/sst.py has been run) the prepared SST folders against their prep.json.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "classify_data.h"
#include "test_util.h"

namespace twin::classify {
namespace {

namespace fs = std::filesystem;
using namespace twin::test;   // the test helpers of test_util.h
using Words = std::vector<std::string>;

TEST(ClassifyData, ReadsLabelsAndTokensInOrder) {
  TempDir d("cls");
  write_file(d.file("train.txt"),
             "1 a stirring , funny film\r\n"
             "0   two  spaces\tand a tab \n"
             "4 Last Line");   // no final newline
  auto s = read_examples(d.file("train.txt"), 0);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].label, 1);
  EXPECT_EQ(s[0].tokens, (Words{"a", "stirring", ",", "funny", "film"}));
  EXPECT_EQ(s[1].label, 0);
  EXPECT_EQ(s[1].tokens, (Words{"two", "spaces", "and", "a", "tab"}));
  EXPECT_EQ(s[2].label, 4);
  EXPECT_EQ(s[2].tokens, (Words{"Last", "Line"}));
  s = read_examples(d.file("train.txt"), 5, /*lowercase=*/true);
  EXPECT_EQ(s[2].tokens, (Words{"last", "line"}));
  // A no-break space inside a token (SST has "2\u00a01\/2") is not a separator: ASCII whitespace only.
  write_file(d.file("nbsp.txt"), "0 its 2\xc2\xa0" "1\\/2 - hour\n");
  EXPECT_EQ(read_examples(d.file("nbsp.txt"), 2)[0].tokens, (Words{"its", "2\xc2\xa0" "1\\/2", "-", "hour"}));
}

TEST(ClassifyData, MalformedLinesAreErrorsNamingFileAndLine) {
  TempDir d("cls");
  const std::string path = d.file("dev.txt");
  const std::string good = "1 a good line\n0 another one\n";
  auto expect = [&](const std::string& third_line, int num_labels, const std::string& what) {
    write_file(path, good + third_line);
    const std::string msg = error_of([&] { read_examples(path, num_labels); });
    EXPECT_TRUE(contains(msg, path + ":3: ")) << msg;
    EXPECT_TRUE(contains(msg, what)) << "for line '" << third_line << "': " << msg;
  };
  expect("\n", 2, "empty line: missing label");
  expect("   \n", 2, "empty line: missing label");
  expect("great movie\n", 2, "label 'great' is not a non-negative integer");
  expect("-1 bad label\n", 2, "label '-1' is not a non-negative integer");
  expect("+1 bad label\n", 2, "label '+1' is not a non-negative integer");
  expect("1.5 bad label\n", 2, "label '1.5' is not a non-negative integer");
  expect("2 unknown label\n", 2, "unknown label 2 (labels are 0..1)");
  expect("7 unknown label\n", 5, "unknown label 7 (labels are 0..4)");
  expect("1\n", 2, "empty text after the label 1");
  expect("0   \n", 2, "empty text after the label 0");
  expect("1 caf\xe9 latin-1\n", 2, "invalid UTF-8 at byte");
  // Without a label count any non-negative integer is a label.
  write_file(path, good + "7 seven\n");
  EXPECT_EQ(read_examples(path, 0)[2].label, 7);
  // An empty file and a missing one.
  write_file(path, "");
  EXPECT_TRUE(contains(error_of([&] { read_examples(path, 2); }), "no examples"));
  const std::string missing = error_of([&] { read_examples(d.file("nope.txt"), 2); });
  EXPECT_TRUE(contains(missing, "nope.txt not found")) << missing;
  EXPECT_TRUE(contains(missing, "data_prep/sst.py")) << missing;
}

TEST(ClassifyData, LabelsAreCountedOrGiven) {
  ClassifyDataConfig c;
  const std::vector<Example> three = {{{"a"}, 2}, {{"b"}, 0}, {{"c"}, 1}, {{"d"}, 1}};
  EXPECT_EQ(count_labels(three, c, "t.txt"), 3);
  EXPECT_EQ(label_counts(three, 3), (std::vector<long>{1, 2, 1}));
  const std::vector<Example> gap = {{{"a"}, 2}, {{"b"}, 0}};
  const std::string msg = error_of([&] { count_labels(gap, c, "t.txt"); });
  EXPECT_TRUE(contains(msg, "t.txt: label 1 never occurs")) << msg;
  EXPECT_TRUE(contains(msg, "data.num_labels")) << msg;
  const std::vector<Example> one = {{{"a"}, 0}, {{"b"}, 0}};
  EXPECT_TRUE(contains(error_of([&] { count_labels(one, c, "t.txt"); }), "at least 2 labels"));
  c.num_labels = 5;   // given: gaps allowed, larger labels not
  EXPECT_EQ(count_labels(gap, c, "t.txt"), 5);
  c.num_labels = 2;
  EXPECT_TRUE(contains(error_of([&] { count_labels(gap, c, "t.txt"); }), "label 2 but data.num_labels = 2"));
}

TEST(ClassifyData, ConfigParsesDefaultsAndRejectsUnknownKeys) {
  JsonReader r(nlohmann::json{{"dir", "d"}, {"protocol", "p"}, {"min_count", 2}, {"num_labels", 5}}, "x.json", "data");
  const ClassifyDataConfig c = parse_classify_data(r);
  EXPECT_EQ(c.dir, "d");
  EXPECT_EQ(c.min_count, 2);
  EXPECT_EQ(c.num_labels, 5);
  EXPECT_EQ(c.batch_size, 32);
  EXPECT_EQ(to_json(c)["embeddings"], "");
  EXPECT_EQ(to_json(c)["train"], "train");
  const nlohmann::json resolved = to_json(c);
  std::vector<std::string> keys;   // config.resolved.json's data keys (sorted by nlohmann::json)
  for (const auto& [k, value] : resolved.items()) keys.push_back(k);
  EXPECT_EQ(keys, (Words{"batch_size", "dev", "dir", "embeddings", "eval_batch_size", "lowercase", "max_vocab",
                         "maxi_batch", "min_count", "num_labels", "protocol", "test", "train"}));
  JsonReader bad(nlohmann::json{{"dir", "d"}, {"protocol", "p"}, {"min_cout", 2}}, "x.json", "data");
  EXPECT_TRUE(contains(error_of([&] { parse_classify_data(bad); }), "min_cout"));
  JsonReader one(nlohmann::json{{"dir", "d"}, {"protocol", "p"}, {"num_labels", 1}}, "x.json", "data");
  EXPECT_TRUE(contains(error_of([&] { parse_classify_data(one); }), "num_labels"));
  JsonReader nodir(nlohmann::json{{"protocol", "p"}}, "x.json", "data");
  EXPECT_TRUE(contains(error_of([&] { parse_classify_data(nodir); }), "dir"));
}

TEST(ClassifyData, VocabularyFromTrainingWithMinCount) {
  const std::vector<Example> train = {{{"the", "film", "is", "good"}, 1}, {{"the", "film", "is", "bad"}, 0},
                                      {{"the", "plot"}, 0}};
  ClassifyDataConfig c;
  Vocab v = build_vocab(train, c);
  EXPECT_EQ(v.size(), 2 + 6);
  EXPECT_EQ(v.word(0), "<pad>");
  EXPECT_EQ(v.word(1), "<unk>");
  EXPECT_EQ(v.word(2), "the");   // most frequent first
  c.min_count = 2;
  v = build_vocab(train, c);
  EXPECT_EQ(v.size(), 2 + 3);   // the, film, is
  EXPECT_EQ(v.id("good"), v.unk_id());
  EXPECT_EQ(v.id("unseen"), v.unk_id());
  c.min_count = 1;
  c.max_vocab = 4;
  EXPECT_EQ(build_vocab(train, c).size(), 4);
}

TEST(ClassifyData, BatchesCoverEveryExampleOncePadded) {
  std::vector<Example> data;
  for (int i = 0; i < 23; ++i) data.push_back({Words(static_cast<size_t>(1 + i % 7), "w"), i % 2});
  ClassifyDataConfig c;
  Vocab v = build_vocab(data, c);
  Rng rng(3);
  const auto batches = batches_by_length(data, example_length,
      {.batch_size = 5, .maxi_batch = 2, .shuffle = true}, rng);
  std::multiset<int> seen;
  for (const auto& b : batches) {
    EXPECT_LE(b.size(), 5u);
    const ClassifyBatch cb = make_batch(data, b, v);
    ASSERT_EQ(cb.size(), static_cast<Index>(b.size()));
    for (size_t k = 0; k < b.size(); ++k) {
      EXPECT_EQ(cb.labels[k], data[static_cast<size_t>(b[k])].label);
      EXPECT_EQ(cb.text.lengths[k], static_cast<int>(data[static_cast<size_t>(b[k])].tokens.size()));
    }
    seen.insert(b.begin(), b.end());
  }
  EXPECT_EQ(seen.size(), data.size());
  for (int i = 0; i < 23; ++i) EXPECT_EQ(seen.count(i), 1u);
  // Evaluation order: unshuffled, consecutive.
  const auto eval = eval_batches(data, example_length, 10);
  ASSERT_EQ(eval.size(), 3u);
  EXPECT_THROW(make_batch(data, {0, 99}, v), Error);
}

// The prepared SST folders (python3 data_prep/sst.py): read by the C++ reader, counts as in prep.json.
TEST(ClassifyData, PreparedSstMatchesPrepJson) {
  const std::string root = std::string(TW_SOURCE_DIR) + "/data/sst";
  if (!fs::exists(root + "/sst2/prep.json") || !fs::exists(root + "/sst5/prep.json"))
    GTEST_SKIP() << "data/sst not prepared (python3 data_prep/sst.py)";
  for (const auto& [set, labels] : {std::pair<std::string, int>{"sst2", 2}, {"sst5", 5}}) {
    std::ifstream in(root + "/" + set + "/prep.json");
    const nlohmann::json prep = nlohmann::json::parse(in);
    ClassifyDataConfig c;
    c.dir = root + "/" + set;
    const auto train = read_examples(split_path(c, "train"), 0);
    EXPECT_EQ(count_labels(train, c, "train"), labels) << set;
    for (const std::string split : {"train", "dev", "test"}) {
      const auto ex = read_examples(split_path(c, split), labels);
      EXPECT_EQ(static_cast<long>(ex.size()), prep["splits"][split]["sentences"].get<long>()) << set << " " << split;
      EXPECT_EQ(label_counts(ex, labels), prep["splits"][split]["labels"].get<std::vector<long>>()) << set << split;
    }
  }
}

}  // namespace
}  // namespace twin::classify
