// A config section declared once (issue 28): each key with its member, type, default (the struct's own
// initialiser), bounds or name table and a one-line description, and the rules that tie keys together. From
// that one table come the strict parser (JsonReader's messages), to_json for config.resolved.json, the check
// of a struct built in code (the same bounds, so a bound lives in one place) and the key reference rows
// (experiments/KEYS.md). A module owns its table beside its struct: optim/ the optimiser's and schedule's,
// rnn/ the cell's, train/ the trainer's.
#pragma once
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/check.h"
#include "base/json_reader.h"
#include "base/names.h"

namespace twin {

// One row of the key reference.
struct KeyDoc {
  std::string key;      // path inside the section, nested sections joined with '.'
  std::string type;     // int, number, bool, string, choice
  nlohmann::json def;   // the default
  std::string allowed;  // "[lo, hi]", "a | b | c", or "" (free text)
  std::string doc;
};

namespace detail {
template <class T>
std::string range_text(T lo, T hi) {
  auto one = [](T v) -> std::string {
    if constexpr (std::is_floating_point_v<T>) {
      if (v >= std::numeric_limits<T>::max()) return "inf";
      nlohmann::json j = v;
      return j.dump();
    } else {
      return std::to_string(v);
    }
  };
  return "[" + one(lo) + ", " + one(hi) + "]";
}
}  // namespace detail

template <class S>
class ConfigTable {
 public:
  // A rule over the whole struct: "" when it holds, else the key it is about and what is wrong.
  using Rule = std::function<std::pair<std::string, std::string>(const S&)>;

  ConfigTable& integer(const std::string& key, int S::*m, int lo, int hi, const std::string& doc) {
    return add(key, "int", doc, detail::range_text(lo, hi),
               [=](JsonReader& r, S& s) { s.*m = r.get_int(key, s.*m, lo, hi); },
               [=](const S& s) { return nlohmann::json(s.*m); },
               [=](const S& s) { return s.*m >= lo && s.*m <= hi; });
  }
  ConfigTable& count(const std::string& key, long S::*m, long lo, long hi, const std::string& doc) {
    return add(key, "int", doc, detail::range_text(lo, hi),
               [=](JsonReader& r, S& s) { s.*m = r.get_long(key, s.*m, lo, hi); },
               [=](const S& s) { return nlohmann::json(s.*m); },
               [=](const S& s) { return s.*m >= lo && s.*m <= hi; });
  }
  ConfigTable& number(const std::string& key, double S::*m, double lo, double hi, const std::string& doc) {
    return add(key, "number", doc, detail::range_text(lo, hi),
               [=](JsonReader& r, S& s) { s.*m = r.get_double(key, s.*m, lo, hi); },
               [=](const S& s) { return nlohmann::json(s.*m); },
               [=](const S& s) { return std::isfinite(s.*m) && s.*m >= lo && s.*m <= hi; });
  }
  ConfigTable& flag(const std::string& key, bool S::*m, const std::string& doc) {
    return add(key, "bool", doc, "true | false", [=](JsonReader& r, S& s) { s.*m = r.get_bool(key, s.*m); },
               [=](const S& s) { return nlohmann::json(s.*m); }, nullptr);
  }
  ConfigTable& text(const std::string& key, std::string S::*m, const std::string& doc) {
    return add(key, "string", doc, "", [=](JsonReader& r, S& s) { s.*m = r.get_string(key, s.*m); },
               [=](const S& s) { return nlohmann::json(s.*m); }, nullptr);
  }
  template <class E, std::size_t N>
  ConfigTable& choice(const std::string& key, E S::*m, const NameTable<E, N>& names, const std::string& doc) {
    return add(key, "choice", doc, names_joined(names),
               [=](JsonReader& r, S& s) {
                 const std::string v = r.get_choice(key, std::string(name_of(names, s.*m)), names_of(names));
                 s.*m = *value_of(names, v);
               },
               [=](const S& s) { return nlohmann::json(std::string(name_of(names, s.*m))); }, nullptr);
  }
  // A nested object parsed by its own table (absent: every default).
  template <class C>
  ConfigTable& section(const std::string& key, C S::*m, const ConfigTable<C>* sub, const std::string& doc) {
    Field f;
    f.key = key;
    f.parse = [=](JsonReader& r, S& s) {
      JsonReader c = r.child(key);
      s.*m = sub->parse(c, s.*m);
    };
    f.write = [=](const S& s) { return sub->to_json(s.*m); };
    f.check = [=](const S& s, const std::string& what) { sub->check(s.*m, what + "." + key); };
    f.doc = [=](const S& s, const std::string& prefix, std::vector<KeyDoc>& out) {
      out.push_back({prefix + key, "section", nlohmann::json::object(), "", doc});
      sub->append_docs(s.*m, prefix + key + ".", out);
    };
    fields_.push_back(std::move(f));
    return *this;
  }
  // A rule checked after every key is read (the parser's error names rule's key) and by check().
  ConfigTable& rule(Rule r) {
    rules_.push_back(std::move(r));
    return *this;
  }

  // Reads every key of the table into a copy of `init` (absent keys keep init's values), applies the rules
  // and reports unknown keys (r.finish()). Keys a caller reads from `r` before the call count as known.
  S parse(JsonReader& r, S init = S{}) const {
    for (const Field& f : fields_) f.parse(r, init);
    for (const Rule& rule : rules_) {
      const auto [key, what] = rule(init);
      if (!what.empty()) r.fail(key, what);
    }
    r.finish();
    return init;
  }
  nlohmann::json to_json(const S& s) const {
    nlohmann::json j = nlohmann::json::object();
    for (const Field& f : fields_) j[f.key] = f.write(s);
    return j;
  }
  // The bounds and rules on a struct built in code; errors read "<what>.<key> = <value> is out of range ...".
  void check(const S& s, const std::string& what) const {
    for (const Field& f : fields_) f.check(s, what);
    for (const Rule& rule : rules_) {
      const auto [key, problem] = rule(s);
      TW_CHECK(problem.empty(), what, ".", key, " ", problem);
    }
  }
  // The key reference rows, defaults taken from `defaults`.
  std::vector<KeyDoc> docs(const S& defaults = S{}, const std::string& prefix = "") const {
    std::vector<KeyDoc> out;
    append_docs(defaults, prefix, out);
    return out;
  }
  void append_docs(const S& defaults, const std::string& prefix, std::vector<KeyDoc>& out) const {
    for (const Field& f : fields_) f.doc(defaults, prefix, out);
  }

 private:
  struct Field {
    std::string key;
    std::function<void(JsonReader&, S&)> parse;
    std::function<nlohmann::json(const S&)> write;
    std::function<void(const S&, const std::string&)> check;
    std::function<void(const S&, const std::string&, std::vector<KeyDoc>&)> doc;
  };

  ConfigTable& add(const std::string& key, const std::string& type, const std::string& doc,
                   const std::string& allowed, std::function<void(JsonReader&, S&)> parse,
                   std::function<nlohmann::json(const S&)> write, std::function<bool(const S&)> in_range) {
    Field f;
    f.key = key;
    f.parse = std::move(parse);
    f.write = write;
    f.check = [=](const S& s, const std::string& what) {
      TW_CHECK(!in_range || in_range(s), what, ".", key, " = ", write(s).dump(), " is out of range ", allowed);
    };
    f.doc = [=](const S& s, const std::string& prefix, std::vector<KeyDoc>& out) {
      out.push_back({prefix + key, type, write(s), allowed, doc});
    };
    fields_.push_back(std::move(f));
    return *this;
  }

  std::vector<Field> fields_;
  std::vector<Rule> rules_;
};

}  // namespace twin
