// A config section declared once (issue 28): each key with its member, type, default (the struct's own
// initialiser), bounds or name table and a one-line description, and the rules that tie keys together. From
// that one table come the strict parser (JsonReader's messages), to_json for config.resolved.json, the check
// of a struct built in code (the same bounds, so a bound lives in one place) and the key reference rows
// (experiments/KEYS.md). A module owns its table beside its struct: optim/ the optimiser's and schedule's,
// rnn/ the cell's, train/ the trainer's.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <type_traits>
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
  bool required = false;  // no default: every experiment gives it
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

// Keys of a section that a task does not read, with the reason ("its batch is data.batch_size"): parse refuses
// them naming the key, to_json and docs leave them out (issue 29: a key the task ignores is an error).
using UnreadKeys = std::map<std::string, std::string>;

template <class S>
class ConfigTable {
 public:
  // A rule over the whole struct: "" when it holds, else the key it is about and what is wrong.
  using Rule = std::function<std::pair<std::string, std::string>(const S&)>;
  // Where a row's value lives in S: a data member (&S::x, a base class's member too) or a lambda reaching
  // into a member struct ([](S& s) -> int& { return s.search.beam; }).
  template <class T>
  using At = std::function<T&(S&)>;

  ConfigTable& integer(const std::string& key, At<int> at, int lo, int hi, const std::string& doc) {
    return add(key, "int", doc, detail::range_text(lo, hi),
               [=](JsonReader& r, S& s) { at(s) = r.get_int(key, at(s), lo, hi); },
               [=](const S& s) { return nlohmann::json(get(at, s)); },
               [=](const S& s) { return get(at, s) >= lo && get(at, s) <= hi; });
  }
  ConfigTable& count(const std::string& key, At<long> at, long lo, long hi, const std::string& doc) {
    return add(key, "int", doc, detail::range_text(lo, hi),
               [=](JsonReader& r, S& s) { at(s) = r.get_long(key, at(s), lo, hi); },
               [=](const S& s) { return nlohmann::json(get(at, s)); },
               [=](const S& s) { return get(at, s) >= lo && get(at, s) <= hi; });
  }
  ConfigTable& unsigned64(const std::string& key, At<std::uint64_t> at, const std::string& doc) {
    return add(key, "int", doc, "[0, 2^64-1]", [=](JsonReader& r, S& s) { at(s) = r.get_uint64(key, at(s)); },
               [=](const S& s) { return nlohmann::json(get(at, s)); }, nullptr);
  }
  ConfigTable& number(const std::string& key, At<double> at, double lo, double hi, const std::string& doc) {
    return add(key, "number", doc, detail::range_text(lo, hi),
               [=](JsonReader& r, S& s) { at(s) = r.get_double(key, at(s), lo, hi); },
               [=](const S& s) { return nlohmann::json(get(at, s)); },
               [=](const S& s) { return std::isfinite(get(at, s)) && get(at, s) >= lo && get(at, s) <= hi; });
  }
  ConfigTable& flag(const std::string& key, At<bool> at, const std::string& doc) {
    return add(key, "bool", doc, "true | false", [=](JsonReader& r, S& s) { at(s) = r.get_bool(key, at(s)); },
               [=](const S& s) { return nlohmann::json(get(at, s)); }, nullptr);
  }
  ConfigTable& text(const std::string& key, At<std::string> at, const std::string& doc) {
    return add(key, "string", doc, "", [=](JsonReader& r, S& s) { at(s) = r.get_string(key, at(s)); },
               [=](const S& s) { return nlohmann::json(get(at, s)); }, nullptr);
  }
  // A string every experiment must give (no default).
  ConfigTable& required_text(const std::string& key, At<std::string> at, const std::string& doc) {
    return add(key, "string", doc, "", [=](JsonReader& r, S& s) { at(s) = r.require_string(key); },
               [=](const S& s) { return nlohmann::json(get(at, s)); }, nullptr, true);
  }
  // A list of strings (absent: the default list).
  ConfigTable& text_list(const std::string& key, At<std::vector<std::string>> at, const std::string& doc) {
    return add(key, "list of strings", doc, "",
               [=](JsonReader& r, S& s) {
                 const nlohmann::json v = r.raw(key);
                 if (v.is_null()) return;
                 if (!v.is_array()) r.fail(key, "must be a list of strings, got " + describe_json(v));
                 std::vector<std::string> out;
                 for (const auto& e : v) {
                   if (!e.is_string()) r.fail(key, "must hold strings, got " + describe_json(e));
                   out.push_back(e.get<std::string>());
                 }
                 at(s) = std::move(out);
               },
               [=](const S& s) { return nlohmann::json(get(at, s)); }, nullptr);
  }
  template <class E, std::size_t N>
  ConfigTable& choice(const std::string& key, std::type_identity_t<At<E>> at, const NameTable<E, N>& names,
                      const std::string& doc) {
    return add(key, "choice", doc, names_joined(names),
               [=](JsonReader& r, S& s) {
                 const std::string v = r.get_choice(key, std::string(name_of(names, at(s))), names_of(names));
                 at(s) = *value_of(names, v);
               },
               [=](const S& s) { return nlohmann::json(std::string(name_of(names, get(at, s)))); }, nullptr);
  }
  // A nested object parsed by its own table (absent: every default).
  template <class C>
  ConfigTable& section(const std::string& key, std::type_identity_t<At<C>> at, const ConfigTable<C>* sub,
                       const std::string& doc) {
    Field f;
    f.key = key;
    f.parse = [=](JsonReader& r, S& s) {
      JsonReader c = r.child(key);
      at(s) = sub->parse(c, at(s));
    };
    f.write = [=](const S& s) { return sub->to_json(get(at, s)); };
    f.check = [=](const S& s, const std::string& what) { sub->check(get(at, s), what + "." + key); };
    f.doc = [=](const S& s, const std::string& prefix, std::vector<KeyDoc>& out) {
      out.push_back({prefix + key, "section", nlohmann::json::object(), "", doc, false});
      sub->append_docs(get(at, s), prefix + key + ".", out);
    };
    fields_.push_back(std::move(f));
    return *this;
  }
  // A row whose parsing no typed row expresses (a value of two JSON types): its own parse and write.
  ConfigTable& custom(const std::string& key, const std::string& type, const std::string& allowed,
                      std::function<void(JsonReader&, S&)> parse, std::function<nlohmann::json(const S&)> write,
                      const std::string& doc) {
    return add(key, type, doc, allowed, std::move(parse), std::move(write), nullptr);
  }
  // A rule checked after every key is read (the parser's error names rule's key) and by check().
  ConfigTable& rule(Rule r) {
    rules_.push_back(std::move(r));
    return *this;
  }

  // Reads every key of the table into a copy of `init` (absent keys keep init's values), applies the rules
  // and reports unknown keys (r.finish()). Keys a caller reads from `r` before the call count as known; a key
  // of `unread` that is present is an error naming it and why.
  S parse(JsonReader& r, S init = S{}, const UnreadKeys& unread = {}) const {
    read(r, init, unread);
    r.finish();
    return init;
  }
  // parse without the unknown-key check, for an object that also holds keys of other tables (the experiment's
  // top level holds the run keys and the task's sections).
  void read(JsonReader& r, S& init, const UnreadKeys& unread = {}) const {
    for (const Field& f : fields_) {
      if (auto u = unread.find(f.key); u != unread.end()) {
        if (r.has(f.key)) r.fail(f.key, "is not read by this task: " + u->second);
        continue;
      }
      f.parse(r, init);
    }
    for (const Rule& rule : rules_) {
      const auto [key, what] = rule(init);
      if (!what.empty()) r.fail(key, what);
    }
  }
  nlohmann::json to_json(const S& s, const UnreadKeys& unread = {}) const {
    nlohmann::json j = nlohmann::json::object();
    for (const Field& f : fields_)
      if (!unread.count(f.key)) j[f.key] = f.write(s);
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
  std::vector<KeyDoc> docs(const S& defaults = S{}, const std::string& prefix = "", const UnreadKeys& unread = {}) const {
    std::vector<KeyDoc> out;
    append_docs(defaults, prefix, out, unread);
    return out;
  }
  void append_docs(const S& defaults, const std::string& prefix, std::vector<KeyDoc>& out,
                   const UnreadKeys& unread = {}) const {
    for (const Field& f : fields_)
      if (!unread.count(f.key)) f.doc(defaults, prefix, out);
  }

 private:
  struct Field {
    std::string key;
    std::function<void(JsonReader&, S&)> parse;
    std::function<nlohmann::json(const S&)> write;
    std::function<void(const S&, const std::string&)> check;
    std::function<void(const S&, const std::string&, std::vector<KeyDoc>&)> doc;
  };

  // Reads through an accessor on a const struct (the accessor's signature is the non-const one).
  template <class T>
  static const T& get(const At<T>& at, const S& s) {
    return at(const_cast<S&>(s));
  }

  ConfigTable& add(const std::string& key, const std::string& type, const std::string& doc,
                   const std::string& allowed, std::function<void(JsonReader&, S&)> parse,
                   std::function<nlohmann::json(const S&)> write, std::function<bool(const S&)> in_range,
                   bool required = false) {
    Field f;
    f.key = key;
    f.parse = std::move(parse);
    f.write = write;
    f.check = [=](const S& s, const std::string& what) {
      TW_CHECK(!in_range || in_range(s), what, ".", key, " = ", write(s).dump(), " is out of range ", allowed);
    };
    f.doc = [=](const S& s, const std::string& prefix, std::vector<KeyDoc>& out) {
      out.push_back({prefix + key, type, required ? nlohmann::json() : write(s), allowed, doc, required});
    };
    fields_.push_back(std::move(f));
    return *this;
  }

  std::vector<Field> fields_;
  std::vector<Rule> rules_;
};

// A section's table, filled on first use and shared from then on (thread-safe, as a function-local static is):
//   const ConfigTable<LmDataConfig>& lm_data_table() {
//     return table_once<LmDataConfig>([]<class C>(ConfigTable<C>& t) { t.text("dir", &C::dir, "..."); });
//   }
// `fill` is a template lambda so that its rows name the members as &C::member.
template <class S, class Fill>
const ConfigTable<S>& table_once(Fill fill) {
  static const ConfigTable<S> t = [&] {
    ConfigTable<S> table;
    fill(table);
    return table;
  }();
  return t;
}

}  // namespace twin
