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
  EXPECT_EQ(keys, (Words{"batch_size", "batch_tokens", "dev", "dir", "embeddings", "eval_batch_size",
                         "eval_batch_tokens", "lowercase", "max_length", "max_vocab", "maxi_batch", "min_count",
                         "num_labels", "protocol", "test", "train", "truncate", "truncate_head"}));
  EXPECT_EQ(resolved["max_length"], 0);   // the defaults: whole texts, no token cap (the batches of before)
  EXPECT_EQ(resolved["truncate"], "head");
  EXPECT_EQ(resolved["batch_tokens"], 0);
  EXPECT_EQ(resolved["eval_batch_tokens"], 0);
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

// The length policy (classify_length.h) on a hand-made 10-token document: exactly the tokens each mode keeps.
TEST(ClassifyLength, TruncationKeepsTheStatedTokens) {
  const Words doc = {"t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9"};
  auto cut = [&](int max_length, Truncate how, int head, long* dropped = nullptr) {
    Words w = doc;
    const long d = truncate_tokens(w, {max_length, how, head});
    if (dropped) *dropped = d;
    return w;
  };
  long dropped = -1;
  EXPECT_EQ(cut(4, Truncate::kHead, 0, &dropped), (Words{"t0", "t1", "t2", "t3"}));
  EXPECT_EQ(dropped, 6);
  EXPECT_EQ(cut(4, Truncate::kTail, 0), (Words{"t6", "t7", "t8", "t9"}));
  EXPECT_EQ(cut(5, Truncate::kHeadTail, 2, &dropped), (Words{"t0", "t1", "t7", "t8", "t9"}));
  EXPECT_EQ(dropped, 5);
  EXPECT_EQ(cut(9, Truncate::kHeadTail, 8), (Words{"t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t9"}));
  EXPECT_EQ(cut(10, Truncate::kTail, 0, &dropped), doc);   // fits: untouched
  EXPECT_EQ(dropped, 0);
  EXPECT_EQ(cut(0, Truncate::kHead, 0, &dropped), doc);    // 0: the whole text
  EXPECT_EQ(dropped, 0);
  EXPECT_EQ(describe({0, Truncate::kHead, 0}), "whole texts");
  EXPECT_EQ(describe({512, Truncate::kTail, 0}), "the last 512 tokens");
  EXPECT_EQ(describe({512, Truncate::kHeadTail, 128}), "the first 128 and the last 384 tokens");

  // Read from a file: the checks see the whole line, then each example is cut; the counts per split.
  TempDir d("cls");
  write_file(d.file("docs.txt"), "1 t0 t1 t2 t3 t4 t5\n0 short one\n1 a b c d\n");
  const auto ex = read_examples(d.file("docs.txt"), 2, false, {4, Truncate::kHeadTail, 1});
  EXPECT_EQ(ex[0].tokens, (Words{"t0", "t3", "t4", "t5"}));
  EXPECT_EQ(ex[0].dropped, 2);
  EXPECT_EQ(ex[1].tokens, (Words{"short", "one"}));
  EXPECT_EQ(ex[2].dropped, 0);
  EXPECT_EQ(truncation_counts(ex),
            (nlohmann::json{{"examples", 3}, {"truncated", 1}, {"tokens_kept", 10}, {"tokens_dropped", 2}}));
  write_file(d.file("bad.txt"), "1 t0 t1 t2 t3 t4 t5\n5 label out of range\n");
  EXPECT_TRUE(contains(error_of([&] { read_examples(d.file("bad.txt"), 2, false, {2, Truncate::kHead, 0}); }),
                       d.file("bad.txt") + ":2: unknown label 5"));
}

// Bad length-policy and token-cap values are refused, each naming its key.
TEST(ClassifyLength, BadValuesAreRefusedNamingTheKey) {
  auto problem = [](nlohmann::json data) {
    data["dir"] = "d";
    data["protocol"] = "p";
    JsonReader r(data, "x.json", "data");
    return error_of([&] { parse_classify_data(r); });
  };
  auto expect = [&](const nlohmann::json& data, const std::string& key, const std::string& what) {
    const std::string msg = problem(data);
    EXPECT_TRUE(contains(msg, "\"data." + key + "\"")) << data.dump() << ": " << msg;
    EXPECT_TRUE(contains(msg, what)) << data.dump() << ": " << msg;
  };
  expect({{"max_length", -1}}, "max_length", "must be an integer in [0, 1073741824]");
  expect({{"max_length", 512}, {"truncate", "middle"}}, "truncate", "must be one of head, tail, head+tail");
  expect({{"truncate", "tail"}}, "truncate", "applies to data.max_length, which is 0");
  expect({{"max_length", 512}, {"truncate", "head+tail"}}, "truncate_head", "must be in [1, max_length - 1]");
  expect({{"max_length", 512}, {"truncate", "head+tail"}, {"truncate_head", 512}}, "truncate_head",
         "must be in [1, max_length - 1]");
  expect({{"max_length", 512}, {"truncate_head", 128}}, "truncate_head", "is read with truncate \"head+tail\" only");
  expect({{"batch_tokens", -1}}, "batch_tokens", "must be an integer in [0, 1073741824]");
  expect({{"eval_batch_tokens", 0.5}}, "eval_batch_tokens", "must be an integer");
  JsonReader valid(nlohmann::json{{"dir", "d"}, {"protocol", "p"}, {"max_length", 512}, {"truncate", "head+tail"},
                                  {"truncate_head", 128}},
                   "x.json", "data");
  const ClassifyDataConfig ok = parse_classify_data(valid);
  EXPECT_EQ(ok.length.max_length, 512);
  EXPECT_EQ(ok.length.truncate, Truncate::kHeadTail);
  EXPECT_EQ(ok.length.truncate_head, 128);
}

// Bucketing and the token cap (data.batch_tokens, data.eval_batch_tokens) on documents of very different
// lengths: every batch stays within the cap (a longer document alone is a batch of one), each example is in
// exactly one batch, and sorting by length inside the window leaves far less padding than the input order.
TEST(ClassifyLength, TokenCapAndLengthSortingBoundBatches) {
  std::vector<Example> data;
  Rng lengths(11);
  for (int i = 0; i < 300; ++i) {
    const int n = 1 + static_cast<int>(lengths.uniform(0, i % 10 == 0 ? 900 : 120));
    data.push_back({Words(static_cast<size_t>(n), "w"), i % 2});
  }
  ClassifyDataConfig c;
  c.batch_size = 32;
  c.batch_tokens = 1000;
  c.eval_batch_tokens = 2000;
  auto padding = [&](const std::vector<std::vector<int>>& batches, long cap, size_t most = 32) {
    PaddingStats st;
    std::multiset<int> seen;
    for (const auto& b : batches) {
      std::vector<Ids> seqs;
      for (int i : b) seqs.push_back(Ids(data[static_cast<size_t>(i)].tokens.size(), 2));
      const SeqBatch sb = pad_batch(seqs, 0);
      EXPECT_LE(b.size(), most);
      if (b.size() > 1) {   // a longer example alone is a batch of one
        EXPECT_LE(sb.size() * sb.steps(), cap) << "a batch of " << b.size();
      }
      st.add(sb);
      seen.insert(b.begin(), b.end());
    }
    EXPECT_EQ(seen.size(), data.size());
    for (int i = 0; i < 300; ++i) EXPECT_EQ(seen.count(i), 1u);
    return st;
  };
  Rng rng(5);
  const PaddingStats sorted = padding(batches_by_length(data, example_length, c.train_options(), rng), 1000);
  BatchingOptions unsorted = c.train_options();
  unsorted.sort_by_length = false;
  const PaddingStats plain = padding(batches_by_length(data, example_length, unsorted, rng), 1000);
  EXPECT_EQ(sorted.tokens, plain.tokens);
  EXPECT_LT(sorted.padding_share(), 0.25);
  EXPECT_GT(plain.padding_share(), 2 * sorted.padding_share());
  EXPECT_LE(sorted.largest_examples * sorted.largest_steps, 1000);
  // Evaluation: input-order indices sorted by length at once, cut at 256 examples or 2,000 padded tokens; the
  // mode's --batch overrides the examples only.
  // Sorted ascending and cut at the cap, the long documents go in pairs of neighbours (padding 9 % here); in
  // input order with the same cap they would pad far more.
  const PaddingStats eval = padding(eval_batches(data, example_length, c.eval_options()), 2000, 256);
  BatchingOptions eval_unsorted = c.eval_options();
  eval_unsorted.sort_by_length = false;
  const PaddingStats eval_plain = padding(eval_batches(data, example_length, eval_unsorted), 2000, 256);
  EXPECT_EQ(eval.tokens, eval_plain.tokens);
  EXPECT_LT(eval.padding_share(), 0.15);
  EXPECT_GT(eval_plain.padding_share(), 2 * eval.padding_share());
  EXPECT_EQ(c.eval_options().batch_size, 256);
  EXPECT_EQ(c.eval_options(7).batch_size, 7);
  EXPECT_EQ(c.eval_options(7).max_tokens, 2000);
  EXPECT_FALSE(c.eval_options().shuffle);
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
