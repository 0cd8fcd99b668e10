// Entity spans, tag-scheme conversion and conlleval-style scores (core/eval/spans.h) on hand-made cases that
// cover each of conlleval's chunk rules, worked out by hand in the comments.
#include <gtest/gtest.h>

#include "base/check.h"
#include "eval/spans.h"

namespace twin {
namespace {

using Tags = std::vector<std::string>;
using Spans = std::vector<Span>;

TEST(Spans, BioEntities) {
  EXPECT_EQ(tag_spans({"B-PER", "I-PER", "O", "B-LOC"}), (Spans{{0, 2, "PER"}, {3, 4, "LOC"}}));
  EXPECT_EQ(tag_spans({"B-PER", "B-PER"}), (Spans{{0, 1, "PER"}, {1, 2, "PER"}}));   // B after B: new entity
  EXPECT_EQ(tag_spans({"O", "O"}), Spans{});
  EXPECT_EQ(tag_spans({}), Spans{});
  EXPECT_EQ(tag_spans({"I-LOC"}), (Spans{{0, 1, "LOC"}}));                           // ends with the sentence
}

TEST(Spans, IobOneAndIllFormedBio) {
  // IOB1: I- starts an entity after O; B- only splits two adjacent entities of one type.
  EXPECT_EQ(tag_spans({"I-PER", "I-PER", "B-PER", "O", "I-LOC"}),
            (Spans{{0, 2, "PER"}, {2, 3, "PER"}, {4, 5, "LOC"}}));
  // An I- after O in BIO output (ill-formed) starts an entity, as conlleval counts it.
  EXPECT_EQ(tag_spans({"O", "I-ORG", "I-ORG"}), (Spans{{1, 3, "ORG"}}));
  // A type change inside an entity ends it and starts another.
  EXPECT_EQ(tag_spans({"B-PER", "I-LOC", "I-LOC"}), (Spans{{0, 1, "PER"}, {1, 3, "LOC"}}));
}

TEST(Spans, Bioes) {
  EXPECT_EQ(tag_spans({"S-PER", "B-LOC", "E-LOC", "B-ORG", "I-ORG", "E-ORG"}),
            (Spans{{0, 1, "PER"}, {1, 3, "LOC"}, {3, 6, "ORG"}}));
  // Ill-formed: E after E and S after B both start again; I after E starts an entity.
  EXPECT_EQ(tag_spans({"E-PER", "E-PER"}), (Spans{{0, 1, "PER"}, {1, 2, "PER"}}));
  EXPECT_EQ(tag_spans({"B-PER", "S-PER"}), (Spans{{0, 1, "PER"}, {1, 2, "PER"}}));
  EXPECT_EQ(tag_spans({"B-PER", "E-PER", "I-PER"}), (Spans{{0, 2, "PER"}, {2, 3, "PER"}}));
}

TEST(Spans, SchemeConversionBothWays) {
  const Tags bio = {"B-PER", "I-PER", "B-PER", "O", "B-LOC", "O", "B-LOC", "I-LOC", "I-LOC"};
  const Tags iob1 = {"I-PER", "I-PER", "B-PER", "O", "I-LOC", "O", "I-LOC", "I-LOC", "I-LOC"};
  const Tags bioes = {"B-PER", "E-PER", "S-PER", "O", "S-LOC", "O", "B-LOC", "I-LOC", "E-LOC"};
  for (const Tags* from : {&bio, &iob1, &bioes}) {
    EXPECT_EQ(convert_tags(*from, TagScheme::kBio), bio);
    EXPECT_EQ(convert_tags(*from, TagScheme::kIob1), iob1);
    EXPECT_EQ(convert_tags(*from, TagScheme::kBioes), bioes);
  }
  EXPECT_THROW(spans_to_tags({{0, 2, "A"}, {1, 3, "B"}}, 3, TagScheme::kBio), Error);   // overlap
  EXPECT_THROW(spans_to_tags({{2, 4, "A"}}, 3, TagScheme::kBio), Error);                 // outside
}

TEST(Spans, SplitTagRejectsMalformedTags) {
  EXPECT_EQ(split_tag("B-creative-work", "f:1").type, "creative-work");
  EXPECT_EQ(split_tag("O", "f:1").prefix, 'O');
  for (const char* bad : {"I-", "X-PER", "PER", "b-PER", "", "O-PER", "B_PER"}) {
    try {
      split_tag(bad, "train.conll:7");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("train.conll:7"), std::string::npos) << e.what();
    }
  }
}

TEST(Spans, SchemeNames) {
  EXPECT_EQ(parse_tag_scheme("IOB2", "k"), TagScheme::kBio);
  EXPECT_EQ(parse_tag_scheme("iobes", "k"), TagScheme::kBioes);
  EXPECT_EQ(parse_tag_scheme("IOB1", "k"), TagScheme::kIob1);
  EXPECT_THROW(parse_tag_scheme("bilou", "k"), Error);
  EXPECT_STREQ(tag_scheme_name(TagScheme::kBioes), "bioes");
}

TEST(Spans, ScoresByHand) {
  SpanCounts c;
  // gold: PER [0,2), LOC [3,4); predicted: PER [0,1) (wrong end), LOC [3,4) (correct).
  c.add({"B-PER", "I-PER", "O", "B-LOC"}, {"B-PER", "O", "O", "B-LOC"});
  // gold: ORG [0,1); predicted: PER [0,1), same boundaries, wrong type -> not correct.
  c.add({"B-ORG", "O"}, {"B-PER", "O"});
  const nlohmann::json j = c.to_json();
  EXPECT_EQ(j["gold_entities"], 3);
  EXPECT_EQ(j["predicted_entities"], 3);
  EXPECT_EQ(j["correct_entities"], 1);
  EXPECT_DOUBLE_EQ(j["precision"].get<double>(), 1.0 / 3);
  EXPECT_DOUBLE_EQ(j["recall"].get<double>(), 1.0 / 3);
  EXPECT_DOUBLE_EQ(j["f1"].get<double>(), 1.0 / 3);
  EXPECT_DOUBLE_EQ(j["token_accuracy"].get<double>(), 4.0 / 6);   // agree: tokens 0, 2, 3 of the first sentence, 1 of the second
  EXPECT_EQ(j["per_type"]["LOC"]["f1"], 1.0);
  EXPECT_EQ(j["per_type"]["PER"]["gold"], 1);
  EXPECT_EQ(j["per_type"]["PER"]["predicted"], 2);
  EXPECT_EQ(j["per_type"]["PER"]["f1"], 0.0);
  EXPECT_EQ(j["per_type"]["ORG"]["predicted"], 0);
  EXPECT_EQ(j["per_type"]["ORG"]["precision"], 0.0);   // no prediction: precision 0 (conlleval)
  EXPECT_THROW(c.add({"O"}, {"O", "O"}), Error);
}

TEST(Spans, NothingPredictedIsZeroNotNan) {
  SpanCounts c;
  c.add({"B-PER"}, {"O"});
  const nlohmann::json j = c.to_json();
  EXPECT_EQ(j["precision"], 0.0);
  EXPECT_EQ(j["recall"], 0.0);
  EXPECT_EQ(j["f1"], 0.0);
  SpanCounts same;
  same.add({"B-PER", "I-PER"}, {"B-PER", "I-PER"});
  EXPECT_EQ(same.to_json()["f1"], 1.0);
}

}  // namespace
}  // namespace twin
