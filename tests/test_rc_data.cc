// Reading-comprehension data (issue 53): the data config, the split reader and its errors (file:line and the
// question id), the length limits, the vocabularies (R-Net's word lookup), every field of a batch, the answer
// text of a span on a UTF-8 context, the prediction file and its scores. The real-data test (when
// data_prep/squad.py has been run): tests/test_rc_real_data.cc.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "base/file_io.h"
#include "graph/init.h"
#include "nn/embedding.h"
#include "rc_data.h"
#include "rc_predictions.h"
#include "rc_vocab.h"
#include "test_util.h"

namespace twin::rc {
namespace {

using namespace twin::test;   // the test helpers of test_util.h
using Words = std::vector<std::string>;
using nlohmann::json;

// "Ann met Bob." with two questions: the hand-made paragraph of the batch tests.
const char* kAnnBob =
    R"({"title":"t","context":"Ann met Bob.","tokens":["Ann","met","Bob","."],"offsets":[[0,3],[4,7],[8,11],[11,12]],)"
    R"("qas":[{"id":"q1","question":"Who met Bob?","question_tokens":["Who","met","Bob","?"],)"
    R"("answers":[{"text":"Ann","char_start":0,"span":[0,0],"aligned":true}]},)"
    R"({"id":"q2","question":"Whom?","question_tokens":["Whom","?"],)"
    R"("answers":[{"text":"Bob","char_start":8,"span":[2,2],"aligned":true},{"text":"Bob.","char_start":8,"span":[2,3]}]}]})";
// A shorter paragraph (2 tokens) for passage padding.
const char* kHiYo =
    R"({"title":"u","context":"Hi yo","tokens":["Hi","yo"],"offsets":[[0,2],[3,5]],)"
    R"("qas":[{"id":"q3","question":"What?","question_tokens":["What","?"],"answers":[{"text":"yo","span":[1,1]}]}]})";

TEST(RcData, ConfigDefaultsAreRNetsAndRulesNameTheKey) {
  JsonReader r(json{{"dir", "d"}, {"protocol", "p"}}, "x.json", "data");
  const RcDataConfig c = parse_rc_data(r);
  EXPECT_EQ(c.passage_limit, 400);
  EXPECT_EQ(c.question_limit, 50);
  EXPECT_EQ(c.test_passage_limit, 1000);
  EXPECT_EQ(c.test_question_limit, 100);
  EXPECT_EQ(c.char_limit, 16);
  EXPECT_EQ(c.batch_size, 64);
  const json resolved = to_json(c);   // items() of a temporary would dangle
  std::vector<std::string> keys;
  for (const auto& [k, v] : resolved.items()) keys.push_back(k);
  EXPECT_EQ(keys, (Words{"batch_size", "batch_tokens", "char_limit", "dev", "dir", "embeddings", "eval_batch_size",
                         "eval_batch_tokens", "heldout", "max_eval_questions", "max_train_questions", "maxi_batch",
                         "min_count", "passage_limit", "protocol", "question_limit", "test_passage_limit",
                         "test_question_limit", "train"}));
  JsonReader unknown(json{{"dir", "d"}, {"protocol", "p"}, {"para_limit", 3}}, "x.json", "data");
  EXPECT_TRUE(contains(error_of([&] { parse_rc_data(unknown); }), "para_limit"));
  JsonReader smaller(json{{"dir", "d"}, {"protocol", "p"}, {"test_passage_limit", 300}}, "x.json", "data");
  EXPECT_TRUE(contains(error_of([&] { parse_rc_data(smaller); }), "test_passage_limit"));
  JsonReader counted(json{{"dir", "d"}, {"protocol", "p"}, {"embeddings", "g.txt"}, {"min_count", 2}}, "x.json",
                     "data");
  EXPECT_TRUE(contains(error_of([&] { parse_rc_data(counted); }), "min_count"));
}

TEST(RcData, ReadsQuestionsWithTheirParagraph) {
  TempDir d("rc");
  const RcSplit s = read_rc_file(d.write("train.jsonl", std::string(kAnnBob) + "\n" + kHiYo + "\n"), {});
  ASSERT_EQ(s.examples.size(), 3u);
  EXPECT_EQ(s.paragraphs, 2);
  const RcExample& q2 = s.examples[1];
  EXPECT_EQ(q2.id, "q2");
  EXPECT_EQ(q2.question.tokens, (Words{"Whom", "?"}));
  EXPECT_EQ(q2.paragraph, s.examples[0].paragraph);   // shared, not copied
  EXPECT_EQ(q2.paragraph->passage.tokens, (Words{"Ann", "met", "Bob", "."}));
  EXPECT_EQ(q2.paragraph->offsets[3].begin, 11);
  EXPECT_EQ(q2.paragraph->offsets[3].end, 12);
  EXPECT_EQ(q2.paragraph->where, d.file("train.jsonl") + ":1");
  ASSERT_EQ(q2.answers.size(), 2u);
  EXPECT_EQ(q2.answers[1].text, "Bob.");
  EXPECT_EQ(q2.answers[1].first, 2);
  EXPECT_EQ(q2.answers[1].last, 3);
  EXPECT_TRUE(q2.answers[1].aligned);   // absent: true
  ASSERT_EQ(s.questions.size(), 3u);
  EXPECT_EQ(s.questions[1].id, "q2");
  EXPECT_EQ(s.questions[1].answers, (Words{"Bob", "Bob."}));
}

TEST(RcData, AnswerTextIsTheContextBetweenTheSpansOffsetsOnUtf8) {
  // "Zürich — café 東京." : ü and é are 2 bytes, — 3, each of 東京 3 (offsets by data_prep/squad.py).
  TempDir d("rc");
  const std::string line =
      R"({"context":"Zürich — café 東京.","tokens":["Zürich","—","café","東京","."],)"
      R"("offsets":[[0,7],[8,11],[12,17],[18,24],[24,25]],"qas":[{"id":"u1","question_tokens":["Wo"],)"
      R"("answers":[{"text":"café 東京","span":[2,3]}]}]})";
  const RcSplit s = read_rc_file(d.write("u.jsonl", line + "\n"), {});
  const RcParagraph& p = *s.examples[0].paragraph;
  EXPECT_EQ(answer_text(p, 2, 3), "café 東京");
  EXPECT_EQ(answer_text(p, 0, 1), "Zürich —");   // the space between tokens is kept
  EXPECT_EQ(answer_text(p, 3, 4), "東京.");
  EXPECT_EQ(answer_text(p, 0, 4), "Zürich — café 東京.");
  EXPECT_TRUE(contains(error_of([&] { answer_text(p, 3, 2); }), "u.jsonl:1: answer span [3, 2]"));
  EXPECT_TRUE(contains(error_of([&] { answer_text(p, 0, 5); }), "outside the passage of 5 tokens"));
  // Characters are code points: "Zürich" is 6 characters, padded to char_limit with 0.
  std::vector<RcExample> ex = s.examples;
  const RcVocabs v = build_vocabs(ex, data_config_in<RcDataConfig>(d.str()));
  encode(ex, v);
  const RcBatch b = make_batch(ex, {0}, 8, true);
  for (int c = 0; c < 8; ++c)
    EXPECT_EQ(b.passage_chars[static_cast<std::size_t>(c)],
              c < 6 ? v.chars.find(Words{"Z", "ü", "r", "i", "c", "h"}[static_cast<std::size_t>(c)]) : 0) << c;
  EXPECT_EQ(b.passage_chars[3 * 8 + 1], v.chars.find("京"));
}

TEST(RcData, VocabulariesFromTrainingOnly) {
  TempDir d("rc");
  RcSplit s = read_rc_file(d.write("train.jsonl", std::string(kAnnBob) + "\n"), {});
  const RcVocabs v = build_vocabs(s.examples, data_config_in<RcDataConfig>(d.str()));
  // Counts (the passage once, then the questions): met 2, Bob 2, ? 2, Ann 1, . 1, Who 1, Whom 1; ties by
  // first appearance.
  EXPECT_EQ(v.words.size(), 9);
  for (const auto& [w, id] : std::vector<std::pair<std::string, int>>{
           {"<pad>", 0}, {"<unk>", 1}, {"met", 2}, {"Bob", 3}, {"?", 4}, {"Ann", 5}, {".", 6}, {"Who", 7}, {"Whom", 8}})
    EXPECT_EQ(v.words.find(w), id) << w;
  EXPECT_EQ(v.word_id("Hi"), kUnkId);
  EXPECT_EQ(v.word_id("ann"), 5);        // R-Net's forms: ann, ann, Ann (capitalised), ANN
  EXPECT_EQ(v.word_id("aNN"), 5);
  EXPECT_EQ(v.word_id("BOB"), 3);
  EXPECT_EQ(v.chars.find("o"), 2);       // o: Bob, Who, Bob, Whom = 4, the most frequent character
  EXPECT_EQ(v.chars.id("x"), kUnkId);
  RcDataConfig twice = data_config_in<RcDataConfig>(d.str());
  twice.min_count = 2;
  EXPECT_EQ(build_vocabs(s.examples, twice).words.size(), 5);   // met, Bob, ?
}

TEST(RcData, WordsOfAVectorFileAreLookedUpAsRNetDoes) {
  TempDir d("rc");
  RcSplit s = read_rc_file(d.write("train.jsonl", std::string(kAnnBob) + "\n"), {});
  RcDataConfig c = data_config_in<RcDataConfig>(d.str());
  c.embeddings = d.write("g.txt", "3 2\nann 0.1 0.2\nBob 0.3 0.4\nWHO 0.5 0.6\n");
  const RcVocabs v = build_vocabs(s.examples, c);
  EXPECT_EQ(v.words.size(), 5);   // <pad> <unk> + the file's words, in file order; training words without one: none
  EXPECT_EQ(v.word_id("Ann"), 2);   // lowercased
  EXPECT_EQ(v.word_id("bob"), 3);   // capitalised
  EXPECT_EQ(v.word_id("who"), 4);   // uppercased
  EXPECT_EQ(v.word_id("met"), kUnkId);
  const std::string dup = d.write("dup.txt", "a 1 2\nb 1 2\na 3 4\n");
  EXPECT_TRUE(contains(error_of([&] { vector_file_words(dup); }), "dup.txt:3: word 'a' again"));
  const std::string ragged = d.write("ragged.txt", "a 1 2\nb 1\n");
  EXPECT_TRUE(contains(error_of([&] { vector_file_words(ragged); }),
                       "ragged.txt:2: 'b' has 1 values, expected 2 (as line 1)"));
}

// The vocabulary's words and the vectors loaded into the model come from one reading rule (nn/glove_lines.h): a
// header, a blank line, CRLF and a word with spaces give the same words both ways, each found by the loader.
TEST(RcData, VectorFileWordsAreTheWordsTheEmbeddingLoaderReads) {
  TempDir d("rc");
  const std::string f = d.write("g.txt", "3 2\r\n. . . 1 2\r\n\nAnn 3 4\nthe\t5\t6\n");
  const std::vector<std::string> words = vector_file_words(f);
  EXPECT_EQ(words, (std::vector<std::string>{". . .", "Ann", "the"}));
  ParamStore store;
  Embedding emb(store, "e", 3, 2, init::constant(0));
  const PretrainedStats st = emb.load_glove(f, words);
  EXPECT_EQ(st.lines, 3);
  EXPECT_EQ(st.found, 3);
  EXPECT_EQ(emb.table().value(2, 1), Real(6));
}

TEST(RcData, BatchOfTwoQuestionsOfOneParagraphHasEveryField) {
  TempDir d("rc");
  RcSplit s = read_rc_file(d.write("train.jsonl", std::string(kAnnBob) + "\n"), {});
  const RcVocabs v = build_vocabs(s.examples, data_config_in<RcDataConfig>(d.str()));
  encode(s.examples, v);
  const RcBatch b = make_batch(s.examples, {1, 0}, 2, true);   // q2 then q1; 2 characters per word
  EXPECT_EQ(b.batch, 2);
  EXPECT_EQ(b.passage_len, 4);
  EXPECT_EQ(b.question_len, 4);
  EXPECT_EQ(b.word_len, 2);
  // Time-major: row t*B + b. Both passages are "Ann met Bob ." (ids 5 2 3 6).
  EXPECT_EQ(b.passage_words, (std::vector<int>{5, 5, 2, 2, 3, 3, 6, 6}));
  // q2 "Whom ?" (8 4) padded to 4; q1 "Who met Bob ?" (7 2 3 4).
  EXPECT_EQ(b.question_words, (std::vector<int>{8, 7, 4, 2, 0, 3, 0, 4}));
  EXPECT_EQ(b.passage_mask, (Mat(8, 1) << 1, 1, 1, 1, 1, 1, 1, 1).finished());
  EXPECT_EQ(b.question_mask, (Mat(8, 1) << 1, 1, 1, 1, 0, 1, 0, 1).finished());
  auto ch = [&](const char* c) { return v.chars.find(c); };
  // Passage characters, cut to 2: An An me me Bo Bo .0 .0
  EXPECT_EQ(b.passage_chars, (std::vector<int>{ch("A"), ch("n"), ch("A"), ch("n"), ch("m"), ch("e"), ch("m"), ch("e"),
                                               ch("B"), ch("o"), ch("B"), ch("o"), ch("."), 0, ch("."), 0}));
  // Question characters: (t=0) Wh Wh (t=1) ?0 me (t=2) 00 Bo (t=3) 00 ?0
  EXPECT_EQ(b.question_chars, (std::vector<int>{ch("W"), ch("h"), ch("W"), ch("h"), ch("?"), 0, ch("m"), ch("e"),
                                                0, 0, ch("B"), ch("o"), 0, 0, ch("?"), 0}));
  EXPECT_EQ(b.answer_start, (std::vector<int>{2, 0}));   // the first answer of each
  EXPECT_EQ(b.answer_end, (std::vector<int>{2, 0}));
  const RcBatch predicting = make_batch(s.examples, {1, 0}, 2, false);
  EXPECT_TRUE(predicting.answer_start.empty());
  EXPECT_TRUE(predicting.answer_end.empty());
  EXPECT_EQ(predicting.question_words, b.question_words);
}

TEST(RcData, BatchPadsTheShorterPassageAndRefusesUnencodedExamples) {
  TempDir d("rc");
  RcSplit s = read_rc_file(d.write("train.jsonl", std::string(kAnnBob) + "\n" + kHiYo + "\n"), {});
  const std::string unencoded = error_of([&] { make_batch(s.examples, {0}, 16, true); });
  EXPECT_TRUE(contains(unencoded, "question 'q1' is not encoded"));
  const RcVocabs v = build_vocabs(s.examples, data_config_in<RcDataConfig>(d.str()));
  encode(s.examples, v);
  const RcBatch b = make_batch(s.examples, {2, 0}, 16, true);   // "Hi yo" (2 tokens), "Ann met Bob ." (4)
  EXPECT_EQ(b.passage_len, 4);
  EXPECT_EQ(b.passage_mask, (Mat(8, 1) << 1, 1, 1, 1, 0, 1, 0, 1).finished());
  auto id = [&](const char* w) { return v.words.find(w); };
  EXPECT_EQ(b.passage_words, (std::vector<int>{id("Hi"), id("Ann"), id("yo"), id("met"), 0, id("Bob"), 0, id(".")}));
  EXPECT_EQ(b.passage_chars.size(), 4u * 2 * 16);
  for (std::size_t k = 4 * 16; k < 5 * 16; ++k) EXPECT_EQ(b.passage_chars[k], 0) << k;   // (t=2, b=0): padding
  EXPECT_EQ(b.answer_start, (std::vector<int>{1, 0}));
  EXPECT_TRUE(contains(error_of([&] { make_batch(s.examples, {3}, 16, true); }), "index 3 out of range [0, 3)"));
}

TEST(RcData, LimitsDropQuestionsAndCountThem) {
  TempDir d("rc");
  const std::string path = d.write("train.jsonl", std::string(kAnnBob) + "\n" + kHiYo + "\n");
  // Passage limit 3: "Ann met Bob ." (4 tokens) goes with both its questions; question limit 1: q3 "What ?".
  const RcSplit s = read_rc_file(path, {3, 1});
  EXPECT_TRUE(s.examples.empty());
  EXPECT_EQ(s.dropped_passage, 2);
  EXPECT_EQ(s.dropped_question, 1);
  EXPECT_EQ(s.questions.size(), 3u);   // scoring still counts them
  EXPECT_EQ(s.summary(), path + ": 2 paragraphs, 3 questions, 0 kept; dropped 2 of passages over 3 tokens and 1 "
                                "over 1 question tokens");
  const RcSplit q = read_rc_file(path, {4, 3});   // q1 has 4 question tokens
  ASSERT_EQ(q.examples.size(), 2u);
  EXPECT_EQ(q.examples[0].id, "q2");
  EXPECT_EQ(q.dropped_question, 1);
  // read_split: training limits for training, the test limits otherwise.
  RcDataConfig c = data_config_in<RcDataConfig>(d.str());
  c.passage_limit = 3;
  c.question_limit = 3;
  EXPECT_EQ(read_split(c, "train", true).examples.size(), 1u);    // q3 only
  EXPECT_EQ(read_split(c, "train", false).examples.size(), 3u);   // 1000 / 100
  EXPECT_TRUE(contains(error_of([&] { read_split(c, "dev", false); }), "dev.jsonl not found (HINT: "));
}

// A file whose line 2 is `bad` (line 1 a good paragraph): the reader's error.
std::string error_on_line_2(const std::string& bad, std::string* path_out = nullptr) {
  TempDir d("rc");
  const std::string path = d.write("bad.jsonl", std::string(kHiYo) + "\n" + bad + "\n");
  if (path_out) *path_out = path;
  return error_of([&] { read_rc_file(path, {}); });
}

TEST(RcData, BadLinesNameFileLineAndTheQuestion) {
  const std::string ctx = R"("context":"Ann met Bob.")";
  const std::string toks = R"("tokens":["Ann","met","Bob","."])";
  const std::string offs = R"("offsets":[[0,3],[4,7],[8,11],[11,12]])";
  auto qa = [](const std::string& id, const std::string& span) {
    return R"({"id":")" + id + R"(","question_tokens":["Who"],"answers":[{"text":"Ann","span":)" + span + "}]}";
  };
  auto para = [&](const std::string& c, const std::string& t, const std::string& o, const std::string& q) {
    std::string s = "{";
    for (const std::string& part : {c, t, o, q})
      if (!part.empty()) s += (s.size() > 1 ? "," : "") + part;
    return s + "}";
  };
  const std::string qas = R"("qas":[)" + qa("q9", "[0,0]") + "]";
  struct Case {
    std::string line, expect;
  };
  const std::vector<Case> cases = {
      {"{not json", ":2: not JSON (at byte 2)"},   // from 0: "{n" then 'o' is not null's 'u'
      {"[1, 2]", ":2: a JSON array, expected an object"},
      {para(ctx, "", offs, qas), ":2: no 'tokens'"},
      {para(ctx, toks, "", qas), ":2: no 'offsets'"},
      {para(ctx, toks, offs, ""), ":2: no 'qas'"},
      {para("", toks, offs, qas), ":2: no 'context'"},
      {para(R"("context":7)", toks, offs, qas), ":2: 'context' is a JSON number, expected a string"},
      {para(ctx, toks, offs, R"("qas":[{"question_tokens":["Who"],"answers":[]}])"), ":2: qas[0]: no 'id'"},
      {para(ctx, toks, R"("offsets":[[0,3],[4,7],[8,11]])", qas), ":2: 4 tokens but 3 offsets"},
      {para(ctx, toks, R"("offsets":[[0,3],[4,7],[8,11],[11,13]])", qas),
       ":2: offsets[3] [11, 13) is outside the context's 12 bytes"},
      {para(ctx, toks, R"("offsets":[[0,3],[4,7],[8,11],[10,11]])", qas), ":2: offsets[3] [10, 11) is outside"},
      {para(ctx, toks, R"("offsets":[[0,3],[4,7],[7,10],[11,12]])", qas),
       ":2: token 2 'Bob' is not the context's bytes offsets[2] [7, 10) (' Bo')"},
      {para(R"("context":"")", R"("tokens":[])", R"("offsets":[])", qas), ":2: empty context"},
      {para(ctx, toks, offs, R"("qas":[)" + qa("q9", "[0,4]") + "]"),
       ":2: question 'q9' answers[0]: span [0, 4] is outside the passage of 4 tokens or has first > last"},
      {para(ctx, toks, offs, R"("qas":[)" + qa("q9", "[2,1]") + "]"), ":2: question 'q9' answers[0]: span [2, 1]"},
      {para(ctx, toks, offs, R"("qas":[)" + qa("q9", "[-1,0]") + "]"), ":2: question 'q9' answers[0]: span [-1, 0]"},
      {para(ctx, toks, offs, R"("qas":[)" + qa("q9", "\"0\"") + "]"),
       ":2: question 'q9' answers[0]: 'span' is a JSON string, expected a list"},
      {para(ctx, toks, offs, R"("qas":[{"id":"q9","question_tokens":[],"answers":[]}])"),
       ":2: question 'q9': empty question"},
      {para(ctx, toks, offs, R"("qas":[{"id":"q9","question_tokens":["Who"],"answers":[]}])"),
       ":2: question 'q9': no answers"},
      {para(ctx, toks, offs, R"("qas":[{"id":"q9","question_tokens":["Who"]}])"), ":2: question 'q9': no 'answers'"},
      {para(ctx, toks, offs, R"("qas":[)" + qa("q9", "[0,0]") + "," + qa("q9", "[1,1]") + "]"),
       ":2: question 'q9': duplicate id, first at "},
      {para(ctx, toks, offs, R"("qas":[)" + qa("q3", "[0,0]") + "]"), ":2: question 'q3': duplicate id, first at "},
      {"{\"context\":\"\xff\"}", ":2: invalid UTF-8"},
  };
  for (const Case& c : cases) {
    std::string path;
    const std::string e = error_on_line_2(c.line, &path);
    EXPECT_TRUE(contains(e, path + c.expect)) << c.line << "\n  -> " << e;
  }
  // The duplicate across lines names the first one's line.
  std::string path;
  const std::string dup = error_on_line_2(para(ctx, toks, offs, R"("qas":[)" + qa("q3", "[0,0]") + "]"), &path);
  EXPECT_TRUE(contains(dup, "first at " + path + ":1")) << dup;
  TempDir d("rc");
  EXPECT_TRUE(contains(error_of([&] { read_rc_file(d.write("e.jsonl", ""), {}); }), "e.jsonl: no questions"));
}

TEST(RcData, PredictionFileIsTheOfficialFormatAndScores) {
  TempDir d("rc");
  RcSplit s = read_rc_file(d.write("dev.jsonl", std::string(kAnnBob) + "\n" + kHiYo + "\n"), {4, 3});
  ASSERT_EQ(s.examples.size(), 2u);   // q1 (4 question tokens) dropped: it must still count, as missing
  const Predictions p = predictions_of(s.examples, {{2, 3}, {0, 1}});   // q2 "Bob." (gold "Bob", "Bob."), q3 "Hi yo"
  EXPECT_EQ(p, (Predictions{{"q2", "Bob."}, {"q3", "Hi yo"}}));
  const std::string file = d.file("dev.json");
  write_predictions(file, p);
  EXPECT_EQ(read_file(file), "{\"q2\":\"Bob.\",\"q3\":\"Hi yo\"}\n");
  const SquadScore sc = score_prediction_file(s, file);
  // q1 missing: 0; q2 EM 1 F1 1 ("Bob." normalises to "bob"); q3 "hi yo" vs "yo": EM 0, F1 2*(1/2*1)/(1/2+1) = 2/3.
  EXPECT_EQ(sc.total, 3);
  EXPECT_EQ(sc.answered, 2);
  EXPECT_DOUBLE_EQ(sc.exact_match, 100.0 / 3);
  EXPECT_DOUBLE_EQ(sc.f1, 100.0 * (1 + 2.0 / 3) / 3);
  Predictions extra = p;
  extra["zz"] = "x";
  const SquadScore with_unknown = score_predictions(s, extra);
  EXPECT_EQ(with_unknown.unknown, (Words{"zz"}));
  EXPECT_DOUBLE_EQ(with_unknown.exact_match, sc.exact_match);   // ignored, as the official script does
  EXPECT_EQ(prediction_report("p.json", with_unknown),
            "p.json: 3 questions, 2 answered; 1 without a prediction scored 0 (as evaluate-v1.1.py's 'Unanswered "
            "question ... will receive score 0') (first: q1); 1 id(s) not in the dataset ignored (as the script does) "
            "(first: zz)");
  EXPECT_TRUE(contains(error_of([&] { predictions_of(s.examples, {{0, 4}, {0, 0}}); }),
                       "question 'q2': predicted span [0, 4] outside its passage of 4 tokens"));
  EXPECT_TRUE(contains(error_of([&] { predictions_of(s.examples, {{0, 0}}); }), "1 spans for 2 questions"));
  const std::string bad = d.write("bad.json", "{\"q2\": 3}");
  EXPECT_TRUE(contains(error_of([&] { read_predictions(bad); }), bad + ": id 'q2': a JSON number"));
  const std::string not_json = d.write("nj.json", "{\"q2\": ");
  EXPECT_TRUE(contains(error_of([&] { read_predictions(not_json); }), not_json + ": not JSON"));
}

}  // namespace
}  // namespace twin::rc
