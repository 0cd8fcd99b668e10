// JsonReader: strict, typed access to one JSON object of an experiment file (DESIGN §4).
// Every getter names the key it knows about; finish() then rejects any key of the object that no getter
// asked for, listing the allowed keys and the closest one (a typo must never be silently ignored: the
// marian-dev #305 lesson). Errors name the source file and the full key path ("train.optim.lr").
#pragma once
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace twin {

class JsonReader {
 public:
  // Where each key path came from ("train.optim.lr" -> "experiments/base/lm.json" or "--set ..."); an
  // Experiment fills it so errors point at the file that holds the bad key. Missing paths use `file`.
  using Sources = std::map<std::string, std::string>;

  // `obj` must be a JSON object (null counts as an empty object). `prefix` is the key path of `obj` itself.
  JsonReader(nlohmann::json obj, std::string file, std::string prefix = "",
             std::shared_ptr<const Sources> sources = nullptr);

  // Typed getters: the default is returned when the key is absent; a present value must have the right
  // type and lie in [min, max]. An integral float (1e5) is accepted as an integer.
  int get_int(const std::string& key, int def, int min = std::numeric_limits<int>::min(),
              int max = std::numeric_limits<int>::max());
  long get_long(const std::string& key, long def, long min = std::numeric_limits<long>::min(),
                long max = std::numeric_limits<long>::max());
  std::uint64_t get_uint64(const std::string& key, std::uint64_t def, std::uint64_t min = 0,
                           std::uint64_t max = std::numeric_limits<std::uint64_t>::max());
  double get_double(const std::string& key, double def, double min = -std::numeric_limits<double>::max(),
                    double max = std::numeric_limits<double>::max());
  bool get_bool(const std::string& key, bool def);
  std::string get_string(const std::string& key, const std::string& def);
  std::string get_choice(const std::string& key, const std::string& def, const std::vector<std::string>& allowed);

  // Required variants: absence is an error.
  int require_int(const std::string& key, int min = std::numeric_limits<int>::min(),
                  int max = std::numeric_limits<int>::max());
  std::string require_string(const std::string& key);

  // Nested object: absent -> an empty object (all defaults); present but not an object -> error.
  // The child tracks its own keys: call finish() on it too (the parse_* functions do).
  JsonReader child(const std::string& key);
  // Marks the key as known without reading it (absent -> false).
  bool has(const std::string& key);
  // The raw value (arrays, free-form objects); null when absent. Marks the key as known.
  nlohmann::json raw(const std::string& key);

  // Throws if the object holds a key that no getter/has/child/raw asked about.
  void finish() const;

  // Throws twin::Error "<file>: "<path.key>" <what>" for checks a getter cannot express.
  [[noreturn]] void fail(const std::string& key, const std::string& what) const;

  std::string key_path(const std::string& key) const;  // prefix + "." + key
  const std::string& prefix() const { return prefix_; }
  const std::string& file() const { return file_; }
  const nlohmann::json& object() const { return obj_; }

 private:
  const nlohmann::json* lookup(const std::string& key);  // marks known; nullptr when absent
  const nlohmann::json& require(const std::string& key);
  std::string source_of(const std::string& path) const;
  [[noreturn]] void type_error(const std::string& key, const std::string& expected, const nlohmann::json& got) const;
  long long get_integer(const std::string& key, const nlohmann::json& v, long long min, long long max) const;
  double get_number(const std::string& key, const nlohmann::json& v, double min, double max) const;
  std::string check_choice(const std::string& key, const nlohmann::json& v, const std::vector<std::string>& allowed) const;

  nlohmann::json obj_;
  std::string file_;
  std::string prefix_;
  std::shared_ptr<const JsonReader::Sources> sources_;
  std::set<std::string> known_;
  std::vector<std::string> known_order_;  // for the "allowed:" list, in the order the parser asks
};

// Levenshtein distance (used for "did you mean" suggestions).
std::size_t edit_distance(const std::string& a, const std::string& b);
// The candidate closest to `word`, or "" when none is plausibly meant (see json_reader.cc for the rule).
std::string closest_name(const std::string& word, const std::vector<std::string>& candidates);
// A short description of a JSON value for error messages: "\"20\" (string)", "3.5 (number)".
std::string describe_json(const nlohmann::json& v);

}  // namespace twin
