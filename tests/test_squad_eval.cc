// The official SQuAD v1.1 EM / F1 (core/eval/squad_eval.h) on hand-computed cases: normalisation (the shared
// fixture tests/data/squad/normalize_cases.json, whose expected strings tests/tools/test_squad_eval.py checks
// against Python's own str.lower / re / str.split, i.e. the official script's normalize_answer), token F1 with
// repeated words, the max over ground truths, missing and unknown ids, and the bad inputs.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "eval/squad_eval.h"
#include "test_util.h"

namespace twin {
namespace {

using namespace twin::test;   // the test helpers of test_util.h

const std::string kFixtures = std::string(TW_SOURCE_DIR) + "/tests/data/squad/";

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST(SquadEval, NormalisationEqualsTheSharedHandWrittenCases) {
  const auto cases = read_json(kFixtures + "normalize_cases.json").at("cases");
  ASSERT_GE(cases.size(), 15u);
  for (const auto& c : cases)
    EXPECT_EQ(squad_normalize(c[0].get<std::string>()), c[1].get<std::string>()) << c[0];
}

TEST(SquadEval, WordCharactersForTheArticleBoundaries) {
  EXPECT_TRUE(is_squad_word_char(U'a'));
  EXPECT_TRUE(is_squad_word_char(U'_'));
  EXPECT_TRUE(is_squad_word_char(U'\u00e9'));   // é
  EXPECT_TRUE(is_squad_word_char(U'\u00b2'));   // ² (isdigit)
  EXPECT_TRUE(is_squad_word_char(U'\u4e2d'));   // 中
  EXPECT_FALSE(is_squad_word_char(U'-'));
  EXPECT_FALSE(is_squad_word_char(U'\u2014'));  // em dash
  EXPECT_FALSE(is_squad_word_char(U'\u00a0'));  // no-break space
  EXPECT_FALSE(is_squad_word_char(U'\u0301'));  // combining acute (Mn: not alnum in Python)
  EXPECT_FALSE(is_squad_word_char(U'\u093f'));  // Devanagari vowel sign i (Mc: not alnum in Python)
  EXPECT_TRUE(is_squad_word_char(U'\u0915'));   // Devanagari ka
  EXPECT_TRUE(is_squad_word_char(U'\u02b9'));   // modifier letter prime (Lm: alpha in Python)
  EXPECT_TRUE(is_squad_word_char(U'\U0001d7ce')); // mathematical bold digit zero (the last range's neighbours)
}

TEST(SquadEval, ExactMatchAfterNormalisation) {
  EXPECT_TRUE(squad_exact_match("The Denver Broncos.", "denver broncos"));
  EXPECT_FALSE(squad_exact_match("Denver", "Denver Broncos"));
  EXPECT_TRUE(squad_exact_match("the", "A!"));   // both normalise to "": the script counts that as a match
}

TEST(SquadEval, F1CountsCommonTokensWithMultiplicity) {
  // [cat sat on mat] vs [cat on mat]: 3 common, P 3/4, R 1, F1 = 2 * 3/4 / (7/4) = 6/7
  EXPECT_NEAR(squad_f1("the cat sat on the mat", "a cat on a mat"), 6.0 / 7.0, 1e-15);
  // {x:3, y:1} vs {x:1, y:2}: min counts 1 + 1 = 2, P 2/4, R 2/3, F1 = (2/3) / (7/6) = 4/7
  EXPECT_NEAR(squad_f1("x x x y", "x y y"), 4.0 / 7.0, 1e-15);
  EXPECT_EQ(squad_f1("red", "blue"), 0.0);
  EXPECT_EQ(squad_f1("the", "a"), 0.0);   // no tokens on either side: 0, though EM is 1
  EXPECT_EQ(squad_f1("Broncos!", "broncos"), 1.0);
}

TEST(SquadEval, ScoreOfTheSharedFixtureEqualsTheHandComputedValues) {
  const auto want = read_json(kFixtures + "expected.json");
  const SquadScore s = squad_score_files(kFixtures + "dataset.json", kFixtures + "predictions.json");
  EXPECT_EQ(s.exact_match, want.at("exact_match").get<double>());   // 100 * 1 / 3
  EXPECT_EQ(s.f1, want.at("f1").get<double>());                     // 100 * (1 + 6/7) / 3, bit for bit
  EXPECT_NEAR(s.f1, 1300.0 / 21.0, 1e-12);
  EXPECT_EQ(s.total, 3);
  EXPECT_EQ(s.answered, 2);
  EXPECT_EQ(s.missing, want.at("missing").get<std::vector<std::string>>());
  EXPECT_EQ(s.unknown, want.at("unknown").get<std::vector<std::string>>());
  const auto j = s.to_json();
  EXPECT_EQ(j.at("missing").get<long>(), 1);
  EXPECT_EQ(j.at("first_unknown").at(0).get<std::string>(), "zz");
}

TEST(SquadEval, MaxOverGroundTruthsTakesEachMetricSeparately) {
  // "santa clara" matches the second answer exactly (EM 1, F1 1); the best F1 is therefore 1 as well
  const std::vector<SquadQuestion> qs{{"q", {"Santa Clara, California", "Santa Clara"}}};
  const SquadScore s = squad_score(qs, {{"q", "Santa Clara"}});
  EXPECT_EQ(s.exact_match, 100.0);
  EXPECT_EQ(s.f1, 100.0);
  // "California" only: EM 0; F1 against the first = 2 * 1 * 1/3 / (4/3) = 1/2, against the second 0
  const SquadScore t = squad_score(qs, {{"q", "California"}});
  EXPECT_EQ(t.exact_match, 0.0);
  EXPECT_NEAR(t.f1, 50.0, 1e-12);
}

TEST(SquadEval, BadInputsNameTheFileAndTheItem) {
  TempDir dir;
  const std::string preds = kFixtures + "predictions.json";
  auto err = [&](const std::string& name, const std::string& body) {
    const std::string path = dir.write(name, body);
    return error_of([&] { squad_score_files(path, preds); });
  };
  EXPECT_TRUE(contains(err("notjson.json", "{\"data\": [}"), "notjson.json: not JSON"));
  EXPECT_TRUE(contains(err("nodata.json", "{\"version\": \"1.1\"}"), "nodata.json: top level: no 'data'"));
  EXPECT_TRUE(contains(err("nopara.json", "{\"data\": [{\"title\": \"x\"}]}"), "data[0]: no 'paragraphs'"));
  EXPECT_TRUE(contains(err("noqas.json", "{\"data\": [{\"paragraphs\": [{\"context\": \"c\"}]}]}"),
                       "data[0].paragraphs[0]: no 'qas'"));
  const std::string dup =
      "{\"data\": [{\"paragraphs\": [{\"context\": \"c\", \"qas\": [{\"id\": \"a\", \"answers\": [{\"text\": \"c\"}]},"
      " {\"id\": \"a\", \"answers\": [{\"text\": \"c\"}]}]}]}]}";
  EXPECT_TRUE(contains(err("dup.json", dup), "dup.json: data[0].paragraphs[0].qas[1]: duplicate id 'a', first at "
                                             "data[0].paragraphs[0].qas[0]"));
  const std::string noans = "{\"data\": [{\"paragraphs\": [{\"qas\": [{\"id\": \"b\", \"answers\": []}]}]}]}";
  EXPECT_TRUE(contains(err("noans.json", noans), "(id b): no answer"));
  const std::string path = dir.write("p.json", "{\"q1\": 3}");
  EXPECT_TRUE(contains(error_of([&] { squad_score_files(kFixtures + "dataset.json", path); }),
                       "p.json: id 'q1': a JSON number, expected the answer string"));
  const std::string arr = dir.write("arr.json", "[\"q1\"]");
  EXPECT_TRUE(contains(error_of([&] { squad_score_files(kFixtures + "dataset.json", arr); }),
                       "arr.json: a JSON array, expected an object"));
}

}  // namespace
}  // namespace twin
