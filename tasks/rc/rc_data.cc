#include "rc_data.h"

#include <cstdio>
#include <filesystem>
#include <map>

#include "base/check.h"
#include "data/text.h"

namespace twin::rc {

const ConfigTable<RcDataConfig>& rc_data_table() {
  return table_once<RcDataConfig>([]<class C>(ConfigTable<C>& t) {
    t.required_text("dir", &C::dir, "folder of the prepared splits (data_prep/squad.py writes data/squad)")
        .required_text("protocol", &C::protocol, "a plain description for tables, e.g. \"SQuAD v1.1 dev\"")
        .text("train", &C::train, "training split name: <dir>/<name>.jsonl")
        .text("heldout", &C::heldout, "checkpoint-selection split name (whole training articles)")
        .text("dev", &C::dev, "reported split name (SQuAD v1.1 dev, official ids)")
        .integer("passage_limit", &C::passage_limit, 1, 1 << 20,
                 "training: questions of passages over this many tokens are dropped (R-Net's para_limit)")
        .integer("question_limit", &C::question_limit, 1, 1 << 20,
                 "training: questions over this many tokens are dropped (R-Net's ques_limit)")
        .integer("test_passage_limit", &C::test_passage_limit, 1, 1 << 20,
                 "heldout, dev and prediction: passage_limit's counterpart (R-Net's test_para_limit)")
        .integer("test_question_limit", &C::test_question_limit, 1, 1 << 20,
                 "heldout, dev and prediction: question_limit's counterpart (R-Net's test_ques_limit)")
        .integer("char_limit", &C::char_limit, 1, 1 << 10, "characters of a word fed to the character RNN")
        .integer("min_count", &C::min_count, 1, 1 << 30,
                 "without embeddings: training words seen fewer times map to <unk>")
        .count("max_train_questions", &C::max_train_questions, 0, 1L << 40,
                 "> 0: only the first N questions of the training file (smoke runs, speed pilots); 0 = all")
        .count("max_eval_questions", &C::max_eval_questions, 0, 1L << 40,
                 "> 0: only the first N questions of heldout and dev, scored over those N; 0 = all")
        .text("embeddings", &C::embeddings,
              "GloVe-format vectors: the word vocabulary is their words (R-Net); \"\" = the training words");
    add_batching_rows<C>(t, [](C& c) -> BatchingConfig& { return c; }, "questions", "evaluation");
    t.rule([](const C& c) -> std::pair<std::string, std::string> {
      if (c.test_passage_limit < c.passage_limit)
        return {"test_passage_limit", "must be at least data.passage_limit (evaluation keeps what training does)"};
      if (c.test_question_limit < c.question_limit)
        return {"test_question_limit", "must be at least data.question_limit"};
      if (!c.embeddings.empty() && c.min_count != 1)
        return {"min_count", "applies to a vocabulary of the training words: with data.embeddings the vocabulary "
                             "is the vectors' words (R-Net's), so leave it at 1"};
      return {"", ""};
    });
  });
}

RcDataConfig parse_rc_data(JsonReader& r) { return rc_data_table().parse(r); }
nlohmann::json to_json(const RcDataConfig& c) { return rc_data_table().to_json(c); }

namespace {
using nlohmann::json;
constexpr const char* kLayout = "expected data_prep/squad.py's paragraph {context, tokens, offsets, qas: [{id, "
                                "question_tokens, answers: [{text, span}]}]}";

const json& need(const json& obj, const char* key, bool (json::*is)() const noexcept, const char* type,
                 const std::string& where) {
  return need_field(obj, key, is, type, where, kLayout);
}

std::vector<std::string> strings_of(const json& a, const char* key, const std::string& where) {
  std::vector<std::string> out;
  out.reserve(a.size());
  for (const json& s : a) {
    TW_CHECK(s.is_string(), where, ": '", key, "' item ", out.size(), " is a JSON ", s.type_name(), ", expected a string");
    out.push_back(s.get<std::string>());
  }
  return out;
}

// [a, b] of two integers that fit an int.
std::pair<long, long> int_pair(const json& v, const std::string& what, const std::string& where) {
  const bool ok = v.is_array() && v.size() == 2 && v[0].is_number_integer() && v[1].is_number_integer();
  TW_CHECK(ok, where, ": ", what, " is ", v.dump(), ", expected a pair of integers [a, b]");
  const long a = v[0].get<long>(), b = v[1].get<long>();
  TW_CHECK(a >= -(1L << 30) && a <= (1L << 30) && b >= -(1L << 30) && b <= (1L << 30), where, ": ", what, " ",
           v.dump(), " is out of range");
  return {a, b};
}

std::shared_ptr<RcParagraph> read_paragraph(const json& p, const std::string& where) {
  auto para = std::make_shared<RcParagraph>();
  para->where = where;
  para->context = need(p, "context", &json::is_string, "a string", where).get<std::string>();
  TW_CHECK(!para->context.empty(), where, ": empty context: every paragraph needs text");
  para->passage.tokens = strings_of(need(p, "tokens", &json::is_array, "a list", where), "tokens", where);
  const json& offsets = need(p, "offsets", &json::is_array, "a list", where);
  const std::size_t n = para->passage.tokens.size();
  TW_CHECK(n > 0, where, ": no tokens in a non-empty context");
  TW_CHECK(offsets.size() == n, where, ": ", n, " tokens but ", offsets.size(), " offsets: one [b, e] per token");
  const long bytes = static_cast<long>(para->context.size());
  long prev_end = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const std::string what = "offsets[" + std::to_string(k) + "]";
    const auto [b, e] = int_pair(offsets[k], what, where);
    TW_CHECK(b >= prev_end && b < e && e <= bytes, where, ": ", what, " [", b, ", ", e, ") is outside the context's ",
             bytes, " bytes or not after the previous token (ending at ", prev_end, "): expected UTF-8 byte offsets");
    const std::string& tok = para->passage.tokens[k];
    TW_CHECK(para->context.compare(static_cast<std::size_t>(b), static_cast<std::size_t>(e - b), tok) == 0, where,
             ": token ", k, " '", tok, "' is not the context's bytes ", what, " [", b, ", ", e, ") ('",
             para->context.substr(static_cast<std::size_t>(b), static_cast<std::size_t>(e - b)), "')");
    para->offsets.push_back({static_cast<int>(b), static_cast<int>(e)});
    prev_end = e;
  }
  return para;
}

RcExample read_question(const json& q, std::size_t k, const std::shared_ptr<RcParagraph>& para,
                        const std::string& where) {
  std::string item = where + ": qas[" + std::to_string(k) + "]";
  TW_CHECK(q.is_object(), item, " is a JSON ", q.type_name(), ", expected an object");
  RcExample ex;
  ex.id = need(q, "id", &json::is_string, "a string", item).get<std::string>();
  TW_CHECK(!ex.id.empty(), item, ": empty id");
  item = where + ": question '" + ex.id + "'";
  ex.paragraph = para;
  ex.question.tokens = strings_of(need(q, "question_tokens", &json::is_array, "a list", item), "question_tokens", item);
  TW_CHECK(!ex.question.tokens.empty(), item, ": empty question (no question_tokens)");
  const json& answers = need(q, "answers", &json::is_array, "a list", item);
  TW_CHECK(!answers.empty(), item, ": no answers (squad.py drops the questions it cannot answer)");
  for (std::size_t a = 0; a < answers.size(); ++a) {
    const std::string wa = item + " answers[" + std::to_string(a) + "]";
    TW_CHECK(answers[a].is_object(), wa, " is a JSON ", answers[a].type_name(), ", expected an object");
    RcAnswer ans;
    ans.text = need(answers[a], "text", &json::is_string, "a string", wa).get<std::string>();
    const auto [first, last] = int_pair(need(answers[a], "span", &json::is_array, "a list", wa), "span", wa);
    TW_CHECK(first >= 0 && first <= last && last < para->passage.size(), wa, ": span [", first, ", ", last,
             "] is outside the passage of ", para->passage.size(), " tokens or has first > last");
    ans.first = static_cast<int>(first);
    ans.last = static_cast<int>(last);
    const auto al = answers[a].find("aligned");
    if (al != answers[a].end()) {
      TW_CHECK(al->is_boolean(), wa, ": 'aligned' is a JSON ", al->type_name(), ", expected true or false");
      ans.aligned = al->get<bool>();
    }
    ex.answers.push_back(std::move(ans));
  }
  return ex;
}
}  // namespace

const nlohmann::json& need_field(const nlohmann::json& obj, const char* key,
                                 bool (nlohmann::json::*is)() const noexcept, const char* type,
                                 const std::string& where, const char* layout) {
  const auto it = obj.find(key);
  TW_CHECK(it != obj.end(), where, ": no '", key, "': ", layout);
  TW_CHECK(((*it).*is)(), where, ": '", key, "' is a JSON ", it->type_name(), ", expected ", type);
  return *it;
}

RcSplit read_rc_file(const std::string& path, RcLimits limits) {
  TW_CHECK(std::filesystem::exists(path), "SQuAD data file ", path, " not found (HINT: RAW_DATA=../shared/data "
           "python3 data_prep/squad.py writes data/squad/ from $RAW_DATA/squad; data.dir in the experiment says where)");
  RcSplit s;
  s.path = path;
  s.limits = limits;
  std::map<std::string, std::string> first_at;   // question id -> "file:line" of its first appearance
  // One paragraph per line; its questions go to s.examples as they come. With limits.questions, reading stops
  // once that many questions are in.
  LineReader in(path);
  for (std::string line; in.next(line);) {
    if (limits.questions > 0 && static_cast<long>(s.questions.size()) >= limits.questions) {
      s.cut = true;   // a line after the first limits.questions questions
      break;
    }
    const std::string where = in.where();
    json p;
    try {
      p = json::parse(line);
    } catch (const json::parse_error& e) {
      // nlohmann counts the bytes read, the bad one included; messages count from 0 (data/text.h).
      TW_FAIL(where, ": not JSON (at byte ", e.byte > 0 ? e.byte - 1 : 0, "): ", kLayout, ", one per line");
    }
    TW_CHECK(p.is_object(), where, ": a JSON ", p.type_name(), ", expected an object: ", kLayout);
    std::shared_ptr<RcParagraph> para = read_paragraph(p, where);
    ++s.paragraphs;
    const json& qas = need(p, "qas", &json::is_array, "a list", where);
    for (std::size_t k = 0; k < qas.size(); ++k) {
      RcExample ex = read_question(qas[k], k, para, where);
      const auto [it, fresh] = first_at.emplace(ex.id, where);
      TW_CHECK(fresh, where, ": question '", ex.id, "': duplicate id, first at ", it->second, ": ids must be unique");
      if (limits.questions > 0 && static_cast<long>(s.questions.size()) >= limits.questions) {
        s.cut = true;   // this paragraph's later questions and every later line are left out
        continue;
      }
      SquadQuestion sq{ex.id, {}};
      for (const RcAnswer& a : ex.answers) sq.answers.push_back(a.text);
      s.questions.push_back(std::move(sq));
      if (limits.passage > 0 && para->passage.size() > limits.passage) {
        ++s.dropped_passage;
      } else if (limits.question > 0 && ex.question.size() > limits.question) {
        ++s.dropped_question;
      } else {
        s.examples.push_back(std::move(ex));
      }
    }
  }
  TW_CHECK(!s.questions.empty(), path, ": no questions (an empty split; rerun python3 data_prep/squad.py)");
  return s;
}

std::string RcSplit::summary() const {
  auto limit = [](int v) { return v > 0 ? std::to_string(v) : std::string("none"); };
  return detail::cat(path, ": ", paragraphs, " paragraphs, ", questions.size(), " questions",
                     cut ? " (the first: data.max_*_questions; the rest of the file not read)" : "", ", ",
                     examples.size(), " kept; dropped ", dropped_passage, " of passages over ", limit(limits.passage),
                     " tokens and ", dropped_question, " over ", limit(limits.question), " question tokens");
}

RcSplit read_split(const RcDataConfig& c, const std::string& name, bool training) {
  const RcLimits limits = training ? RcLimits{c.passage_limit, c.question_limit, c.max_train_questions}
                                   : RcLimits{c.test_passage_limit, c.test_question_limit, c.max_eval_questions};
  RcSplit s = read_rc_file(c.dir + "/" + name + ".jsonl", limits);
  std::fprintf(stderr, "rc: %s\n", s.summary().c_str());
  return s;
}

std::string answer_text(const RcParagraph& p, int first, int last) {
  TW_CHECK(first >= 0 && first <= last && last < static_cast<int>(p.offsets.size()), p.where, ": answer span [",
           first, ", ", last, "] is outside the passage of ", p.offsets.size(), " tokens or has first > last");
  const ByteSpan& b = p.offsets[static_cast<std::size_t>(first)];
  const ByteSpan& e = p.offsets[static_cast<std::size_t>(last)];
  return p.context.substr(static_cast<std::size_t>(b.begin), static_cast<std::size_t>(e.end - b.begin));
}

}  // namespace twin::rc
