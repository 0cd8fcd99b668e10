// base/config_table.h and base/names.h: one declared table gives the parser (defaults, bounds, choices, rules,
// unknown keys), to_json, the check of a struct built in code and the key-reference rows; the real tables
// (train, optim, schedule, cell) list every key they parse.
#include <gtest/gtest.h>

#include <set>

#include "base/config_table.h"
#include "data/batching_config.h"
#include "rnn/cell_config.h"
#include "test_util.h"
#include "train/config.h"

namespace twin {
namespace {

using test::contains;
using test::error_of;

enum class Colour { kRed, kBlue };
inline constexpr NameTable<Colour, 2> kColours{{{Colour::kRed, "red"}, {Colour::kBlue, "blue"}}};
enum class TableMode { kA, kB };
inline constexpr NameTable<TableMode, 2> kTableModes{{{TableMode::kA, "a"}, {TableMode::kB, "b"}}};

struct Inner {
  double x = 0.5;
};
struct Outer {
  int n = 3;
  bool on = false;
  Colour colour = Colour::kBlue;
  Inner inner;
};

const ConfigTable<Inner>& inner_table() {
  static const ConfigTable<Inner> t = [] {
    ConfigTable<Inner> t;
    t.number("x", &Inner::x, 0.0, 1.0, "a fraction");
    return t;
  }();
  return t;
}

ConfigTable<Outer> outer_table() {
  ConfigTable<Outer> t;
  t.integer("n", &Outer::n, 1, 10, "a count")
      .flag("on", &Outer::on, "a switch")
      .choice("colour", &Outer::colour, kColours, "a colour")
      .section("inner", &Outer::inner, &inner_table(), "nested");
  t.rule([](const Outer& o) {
    return o.on && o.n < 2 ? std::pair<std::string, std::string>{"n", "must be >= 2 when on"}
                           : std::pair<std::string, std::string>{"", ""};
  });
  return t;
}

TEST(Names, BothWays) {
  EXPECT_EQ(name_of(kColours, Colour::kRed), "red");
  EXPECT_EQ(value_of(kColours, "blue"), Colour::kBlue);
  EXPECT_FALSE(value_of(kColours, "green").has_value());
  EXPECT_EQ(names_joined(kColours), "red | blue");
}

TEST(ConfigTable, ParseWriteCheckAndDocs) {
  const ConfigTable<Outer> t = outer_table();
  JsonReader empty(nlohmann::json::object(), "e.json", "s");
  const Outer d = t.parse(empty);
  EXPECT_EQ(d.n, 3);
  EXPECT_EQ(d.colour, Colour::kBlue);
  nlohmann::json j = {{"n", 7}, {"on", true}, {"colour", "red"}, {"inner", {{"x", 0.25}}}};
  JsonReader r(j, "e.json", "s");
  const Outer o = t.parse(r);
  EXPECT_EQ(o.n, 7);
  EXPECT_EQ(o.colour, Colour::kRed);
  EXPECT_EQ(o.inner.x, 0.25);
  EXPECT_EQ(t.to_json(o), j);   // every key, choices spelled by the table
  auto parse_error = [&](nlohmann::json bad) {
    JsonReader b(bad, "e.json", "s");
    return error_of([&] { t.parse(b); });
  };
  EXPECT_PRED2(contains, parse_error({{"n", 11}}), "\"s.n\"");
  EXPECT_PRED2(contains, parse_error({{"colour", "green"}}), "\"green\"");
  EXPECT_PRED2(contains, parse_error({{"inner", {{"x", 2}}}}), "\"s.inner.x\"");
  EXPECT_PRED2(contains, parse_error({{"on", true}, {"n", 1}}), "must be >= 2 when on");
  EXPECT_PRED2(contains, parse_error({{"nn", 1}}), "unknown key");
  Outer bad = o;
  bad.inner.x = 3;
  EXPECT_PRED2(contains, error_of([&] { t.check(bad, "outer"); }), "outer.inner.x = 3.0 is out of range [0.0, 1.0]");
  bad = o;
  bad.n = 1;
  EXPECT_PRED2(contains, error_of([&] { t.check(bad, "outer"); }), "outer.n must be >= 2 when on");
  const auto docs = t.docs();
  ASSERT_EQ(docs.size(), 5u);   // n, on, colour, inner (section), inner.x
  EXPECT_EQ(docs[2].allowed, "red | blue");
  EXPECT_EQ(docs[2].def, "blue");
  EXPECT_EQ(docs[4].key, "inner.x");
  EXPECT_EQ(docs[0].allowed, "[1, 10]");
}

// The real tables document every key their to_json writes (so the key reference cannot miss one).
TEST(ConfigTable, CoreTablesDocumentEveryWrittenKey) {
  auto keys_of = [](const nlohmann::json& j, const std::string& prefix, auto& self) -> std::set<std::string> {
    std::set<std::string> out;
    for (const auto& [k, v] : j.items()) {
      out.insert(prefix + k);
      if (v.is_object())
        for (const auto& s : self(v, prefix + k + ".", self)) out.insert(s);
    }
    return out;
  };
  auto doc_keys = [](const std::vector<KeyDoc>& d) {
    std::set<std::string> out;
    for (const auto& k : d) out.insert(k.key);
    return out;
  };
  EXPECT_EQ(doc_keys(train_table().docs()), keys_of(to_json(TrainConfig{}), "", keys_of));
  EXPECT_EQ(doc_keys(cell_table().docs()), keys_of(to_json(CellConfig{}), "", keys_of));
  EXPECT_EQ(train_table().docs().size(), 9u + 1 + 10 + 1 + 8);
}

// A task that does not read a key refuses it by name (issue 29: cws --set train.batch_size=5 was accepted and
// ignored), and leaves it out of to_json and the key reference.
TEST(ConfigTable, UnreadKeysAreRefusedAndLeftOut) {
  const ConfigTable<Outer> t = outer_table();
  const UnreadKeys unread = {{"on", "this task has no switch"}};
  JsonReader given(nlohmann::json{{"on", true}}, "x.json");
  EXPECT_PRED2(contains, error_of([&] { t.parse(given, Outer{}, unread); }),
               "x.json: \"on\" is not read by this task: this task has no switch");
  JsonReader absent(nlohmann::json{{"n", 4}}, "x.json");
  EXPECT_EQ(t.parse(absent, Outer{}, unread).n, 4);
  EXPECT_FALSE(t.to_json(Outer{}, unread).contains("on"));
  EXPECT_TRUE(t.to_json(Outer{}).contains("on"));
  for (const KeyDoc& d : t.docs(Outer{}, "", unread)) EXPECT_NE(d.key, "on");
  // The real case: train.batch_size for a task that batches by its data keys.
  JsonReader train(nlohmann::json{{"batch_size", 5}}, "exp.json", "train");
  EXPECT_PRED2(contains, error_of([&] { parse_train(train, {{"batch_size", "the cws task batches by data.batch_size"}}); }),
               "\"train.batch_size\" is not read by this task: the cws task batches by data.batch_size");
}

// Required keys, a choice parsed into its enum, lists and accessor rows (a member of a member).
TEST(ConfigTable, RequiredChoiceListAndAccessorRows) {
  struct Deep {
    int k = 2;
  };
  struct S {
    std::string dir;
    TableMode mode = TableMode::kA;
    std::vector<std::string> names;
    Deep deep;
  };
  ConfigTable<S> t;
  t.required_text("dir", &S::dir, "where")
      .choice("mode", &S::mode, kTableModes, "a mode")
      .text_list("names", &S::names, "some names")
      .integer("k", [](S& s) -> int& { return s.deep.k; }, 1, 5, "a nested count");
  JsonReader none(nlohmann::json::object(), "s.json");
  EXPECT_PRED2(contains, error_of([&] { t.parse(none); }), "\"dir\"");
  JsonReader ok(nlohmann::json{{"dir", "d"}, {"mode", "b"}, {"names", {"x", "y"}}, {"k", 4}}, "s.json");
  const S s = t.parse(ok);
  EXPECT_EQ(s.mode, TableMode::kB);
  EXPECT_EQ(s.names, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(s.deep.k, 4);
  EXPECT_EQ(t.to_json(s), (nlohmann::json{{"dir", "d"}, {"mode", "b"}, {"names", {"x", "y"}}, {"k", 4}}));
  JsonReader bad_mode(nlohmann::json{{"dir", "d"}, {"mode", "c"}}, "s.json");
  EXPECT_PRED2(contains, error_of([&] { t.parse(bad_mode); }), "\"mode\"");
  JsonReader bad_list(nlohmann::json{{"dir", "d"}, {"names", {1}}}, "s.json");
  EXPECT_PRED2(contains, error_of([&] { t.parse(bad_list); }), "\"names\" must hold strings");
  JsonReader bad_k(nlohmann::json{{"dir", "d"}, {"k", 9}}, "s.json");
  EXPECT_PRED2(contains, error_of([&] { t.parse(bad_k); }), "\"k\"");
  const std::vector<KeyDoc> d = t.docs();
  ASSERT_EQ(d.size(), 4u);
  EXPECT_TRUE(d[0].required);
  EXPECT_TRUE(d[0].def.is_null());
  EXPECT_EQ(d[1].allowed, "a | b");
  EXPECT_EQ(d[3].def, 2);
  EXPECT_EQ(d[3].allowed, "[1, 5]");
}

// data/batching_config.h: the three batching rows every example-list task's data table has, their docs naming
// the task's unit, and the options they give the trainer's batching and the evaluation.
struct Batched : BatchingConfig {
  Batched() : BatchingConfig(7) {}
  int other = 0;
};

TEST(BatchingConfig, RowsDefaultsAndTheOptionsTheyGive) {
  ConfigTable<Batched> t;
  t.integer("other", &Batched::other, 0, 9, "not batching");
  add_batching_rows<Batched>(t, [](Batched& b) -> BatchingConfig& { return b; }, "pairs", "decoding");
  JsonReader empty(nlohmann::json::object(), "e.json", "data");
  const Batched d = t.parse(empty);
  EXPECT_EQ(d.batch_size, 7);   // the task's own default
  EXPECT_EQ(d.maxi_batch, 20);
  EXPECT_EQ(d.eval_batch_size, 256);
  EXPECT_EQ(d.train_options().max_tokens, 0);   // no token cap unless asked: the batches of before
  EXPECT_EQ(d.eval_options().max_tokens, 0);
  JsonReader given(nlohmann::json{{"batch_size", 3}, {"maxi_batch", 0}, {"eval_batch_size", 5},
                                  {"batch_tokens", 60}, {"eval_batch_tokens", 90}}, "e.json", "data");
  const Batched b = t.parse(given);
  const BatchingOptions tr = b.train_options(), ev = b.eval_options();
  EXPECT_EQ(tr.batch_size, 3);
  EXPECT_EQ(tr.maxi_batch, 0);
  EXPECT_EQ(tr.max_tokens, 60);
  EXPECT_TRUE(tr.shuffle);
  EXPECT_EQ(ev.batch_size, 5);
  EXPECT_EQ(ev.maxi_batch, 0);
  EXPECT_EQ(ev.max_tokens, 90);
  EXPECT_FALSE(ev.shuffle);
  EXPECT_EQ(b.eval_options(2).batch_size, 2);   // a mode's --batch
  const std::vector<KeyDoc> docs = t.docs();
  ASSERT_EQ(docs.size(), 6u);
  EXPECT_EQ(docs[1].key, "batch_size");
  EXPECT_EQ(docs[1].doc, "pairs per training batch");
  EXPECT_EQ(docs[1].def, 7);
  EXPECT_EQ(docs[3].doc, "pairs per decoding batch");
  EXPECT_EQ(docs[4].key, "batch_tokens");
  EXPECT_EQ(docs[5].doc, "padded positions per decoding batch at most; 0 = no cap");
  JsonReader bad(nlohmann::json{{"batch_size", 0}}, "e.json", "data");
  EXPECT_PRED2(contains, error_of([&] { t.parse(bad); }), "\"data.batch_size\"");
}

}  // namespace
}  // namespace twin
