// Regression tests for the findings of the libFuzzer targets in tests/fuzz/ (README.md there): each test
// feeds the smallest form of an input that crashed, tripped a sanitizer or threw something other than
// twin::Error, and checks that it is now a twin::Error with a message that names the problem. The inputs
// themselves are in tests/fuzz/corpus/<target>/ too, so every fuzz run replays them first.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "base/json_reader.h"
#include "classify_data.h"
#include "corpus/subword.h"
#include "graph/param.h"
#include "optim/optimizer.h"
#include "test_util.h"
#include "train/checkpoint.h"
#include "train/config.h"
#include "train/experiment.h"
#include "train/progress.h"
#include "train/run_dir.h"

namespace twin {
namespace {

using test::contains;
using test::error_of;
using test::kNoErrorThrown;

// A checkpoint container written by hand (layout in train/checkpoint.h), so a test can hold values the
// save functions never write.
void write_container(const std::string& path, const nlohmann::json& header, const std::string& data) {
  const std::string h = header.dump();
  std::string out = "TWCK";
  auto put = [&out](std::uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  };
  put(kCheckpointVersion, 4);
  put(h.size(), 8);
  out += h + data;
  put(fnv1a64(out.data(), out.size()), 8);
  std::ofstream(path, std::ios::binary) << out;
}

// fuzz_experiment: a --set value that is not UTF-8 became a JSON string that nlohmann cannot dump, so the
// first error message quoting it threw json::type_error (uncaught: the process aborted) instead of an Error.
TEST(FuzzRegression, SetAssignmentThatIsNotUtf8) {
  const std::string msg = error_of([] {
    Experiment e = Experiment::from_json({{"name", "x"}}, "exp.json", {"model=\xff"});
    JsonReader r = e.reader();
    (void)r.child("model");
  });
  EXPECT_PRED2(contains, msg, "--set: the assignment is not valid UTF-8 (byte 6 of \"model=...\")") << msg;
  // In-memory configs (tools, tests) can still hold such strings: describing one must not throw either.
  EXPECT_EQ(describe_json(nlohmann::json(std::string("a\xff"))), "\"a\xEF\xBF\xBD\" (string)");
}

// fuzz_experiment, fuzz_checkpoint: nlohmann reports a number beyond double's range ("1e400") as out_of_range,
// not parse_error, so it escaped both JSON readers' handlers as a foreign exception.
TEST(FuzzRegression, JsonNumberBeyondDouble) {
  std::string msg = error_of([] { (void)parse_json_text("{\"train\": {\"lr\": 1e400}}", "exp.json"); });
  EXPECT_PRED2(contains, msg, "exp.json: JSON number out of range (number overflow parsing '1e400')") << msg;
  test::TempDir dir;
  std::ofstream(dir.file("progress.json")) << "{\"epoch\": 1e400}";
  msg = error_of([&] { (void)load_progress(dir.file("progress.json")); });
  EXPECT_PRED2(contains, msg, "progress.json is not valid JSON: ") << msg;
  EXPECT_PRED2(contains, msg, "number overflow parsing '1e400'") << msg;
}

// Found by review of the fuzz_experiment stack traces, beyond the fuzzer's 8 KB inputs: nlohmann parses deep
// nesting iteratively but copies it recursively, so a config (or checkpoint header, or progress.json) of
// 100000 nested brackets overflowed the stack when the loader copied it.
TEST(FuzzRegression, JsonNestedTooDeep) {
  const int deep = 100000;
  const std::string text = "{\"model\": " + std::string(deep, '[') + std::string(deep, ']') + "}";
  std::string msg = error_of([&] { (void)parse_json_text(text, "exp.json"); });
  EXPECT_PRED2(contains, msg, "exp.json: JSON nested deeper than 100 levels") << msg.substr(0, 200);
  msg = error_of([&] { (void)Experiment::from_json({{"name", "x"}}, "exp.json", {"model=" + std::string(deep, '[') +
                                                                                 std::string(deep, ']')}); });
  EXPECT_PRED2(contains, msg, "the value is nested deeper than 100 levels") << msg.substr(0, 200);
  test::TempDir dir;
  std::ofstream(dir.file("progress.json")) << std::string(deep, '[') << std::string(deep, ']');
  msg = error_of([&] { (void)load_progress(dir.file("progress.json")); });
  EXPECT_PRED2(contains, msg, "progress.json: JSON nested deeper than 100 levels") << msg.substr(0, 200);
  // 100 levels are still fine.
  EXPECT_EQ(error_of([] { (void)parse_json_text(std::string(100, '[') + std::string(100, ']'), "ok.json"); }),
            kNoErrorThrown);
}

// fuzz_checkpoint: an entry of 0 elements passes the size check whatever its other dimension, and a dimension
// above 2^63 became a negative Index: Eigen's assertion in a debug build, a matrix with negative rows else.
TEST(FuzzRegression, CheckpointEntryDimensionOutOfRange) {
  test::TempDir dir;
  const std::string path = dir.file("huge.bin");
  const nlohmann::json header = {
      {"format", "twinrnn checkpoint"}, {"version", kCheckpointVersion}, {"kind", "optim"},
      {"dtype", "float32"}, {"data_bytes", 0},
      {"params", {{{"name", "e"}, {"rows", std::numeric_limits<std::uint64_t>::max() - 3}, {"cols", 0},
                   {"offset", 0}}}}};
  write_container(path, header, "");
  const std::string msg = error_of([&] { (void)load_named_mats(path); });
  EXPECT_PRED2(contains, msg, "entry 'e' has shape [18446744073709551612x0]; each dimension must be below 2^31")
      << msg;
}

// fuzz_checkpoint: the optimiser's step counter is stored as two floats; a huge first one was cast to long
// (undefined behaviour, UBSan: "3e+38 is outside the range of representable values of type 'long'").
TEST(FuzzRegression, OptimizerStepCounterOutOfRange) {
  ParamStore store(1);
  store.add("w", 2, 2, [](Mat& m, Rng&) { m.setConstant(Real(0.5)); });
  OptimConfig c;
  c.name = OptimKind::kAdam;
  auto opt = make_optimizer(c);
  opt->init(store);
  NamedMats state = opt->state();
  for (auto& [name, m] : state)
    if (name == "adam/step") m(0, 0) = Real(3e38);
  const std::string msg = error_of([&] { opt->load_state(state); });
  EXPECT_PRED2(contains, msg, "optimiser state: entry 'adam/step' = [3") << msg;
  EXPECT_PRED2(contains, msg, "is not a valid step counter") << msg;
}

// fuzz_checkpoint: the progress record's integers went through nlohmann's get<int>() / get<size_t>(): a
// float such as 1e300 was cast (undefined behaviour) and -5 wrapped into a batch index near 2^64, so a
// resume would have continued from a wrong position instead of failing.
TEST(FuzzRegression, ProgressIntegersOutOfRange) {
  const Progress fresh;
  const nlohmann::json good = fresh.to_json();
  EXPECT_EQ(error_of([&] { (void)Progress::from_json(good); }), kNoErrorThrown);
  struct Case {
    const char* pointer;   // JSON pointer of the field
    nlohmann::json value;
    const char* message;
  };
  const Case cases[] = {
      {"/epoch", 1e300, "\"epoch\" must be an integer in [0, 2147483647], got 1e+300"},
      {"/batch", -5, "\"batch\" must be an integer in [0, 9223372036854775807], got -5"},
      {"/step", std::numeric_limits<std::uint64_t>::max(), "\"step\" must be an integer"},
      {"/stalled", 2.5, "\"stalled\" must be an integer"},
      {"/sched/decays", 1e300, "\"decays\" must be an integer"},
  };
  for (const Case& k : cases) {
    nlohmann::json j = good;
    j[nlohmann::json::json_pointer(k.pointer)] = k.value;
    const std::string msg = error_of([&] { (void)Progress::from_json(j); });
    EXPECT_PRED2(contains, msg, "checkpoint progress record is malformed: ") << k.pointer << ": " << msg;
    EXPECT_PRED2(contains, msg, k.message) << k.pointer << ": " << msg;
  }
}

// fuzz_classify: with the label count taken from the data, a stray huge label made count_labels allocate one
// counter per label up to it before finding the gap (the fuzz input "955555551 ..." asked for 7.6 GB), and
// label 2147483647 overflowed top + 1 (undefined behaviour; in practice a negative label count, no error).
TEST(FuzzRegression, ClassifyHugeLabelWithCountedLabels) {
  test::TempDir dir;
  const std::string path = dir.file("train.txt");
  std::ofstream(path) << "0 a fine film\n2147483647 stray\n1 dull\n";
  classify::ClassifyDataConfig c;   // num_labels = 0: counted from the data
  const auto train = classify::read_examples(path, 0);
  const std::string msg = error_of([&] { (void)classify::count_labels(train, c, path); });
  EXPECT_PRED2(contains, msg, "train.txt: label 2 never occurs although label 2147483647 does") << msg;
}

// fuzz_nmt: SentencePiece throws (instead of returning a status) on a model whose piece starts with a NUL byte:
// its trie builder sees a zero-length key. The exception escaped Subword's constructor as a foreign type.
TEST(FuzzRegression, SubwordModelThatSentencePieceThrowsOn) {
  // The model part of the fuzz input (src #--# tgt #--# model): the committed BPE model cut after its pieces
  // (so SentencePiece takes it for a unigram model) with a piece "\0\0\0a".
  const std::string input = read_file(std::string(TW_SOURCE_DIR) + "/tests/fuzz/corpus/nmt/crash_model_nul_piece");
  const std::string sep = "\n#--#\n";
  const auto at = input.find(sep, input.find(sep) + 1);
  ASSERT_NE(at, std::string::npos);
  const std::string model = input.substr(at + sep.size());
  test::TempDir dir;
  std::ofstream(dir.file("bad.model"), std::ios::binary) << model;
  const std::string msg = error_of([&] { nmt::Subword sp(dir.file("bad.model")); });
  EXPECT_PRED2(contains, msg, "bad.model: SentencePiece cannot load it (") << msg;
  EXPECT_PRED2(contains, msg, "zero-length key") << msg;
}

}  // namespace
}  // namespace twin
