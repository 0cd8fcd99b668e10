#include "base/json_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/check.h"

namespace twin {

namespace {

std::string fmt_num(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", x);
  return buf;
}

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

// " in [a, b]", " >= a", " <= b" or "" depending on which bounds are real limits.
template <typename T>
std::string range_str(T min, T max, T lowest, T highest, std::string (*f)(T)) {
  bool has_min = min != lowest, has_max = max != highest;
  if (has_min && has_max) return " in [" + f(min) + ", " + f(max) + "]";
  if (has_min) return " >= " + f(min);
  if (has_max) return " <= " + f(max);
  return "";
}
std::string ll_str(long long x) { return std::to_string(x); }
std::string u64_str(std::uint64_t x) { return std::to_string(x); }
std::string dbl_str(double x) { return fmt_num(x); }

bool is_subsequence(const std::string& small, const std::string& big) {
  size_t j = 0;
  for (size_t i = 0; i < big.size() && j < small.size(); ++i)
    if (big[i] == small[j]) ++j;
  return j == small.size();
}

}  // namespace

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// A typo (distance <= max(2, |word|/3)) wins; failing that, an abbreviation or expansion that shares the
// first letter ("lr" for "learning_rate", "lerning_rate" -> "lr"). Otherwise no suggestion: a wild guess
// is worse than none.
std::string closest_name(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    size_t d = edit_distance(word, c);
    if (d < best_d) best_d = d, best = c;
  }
  if (!best.empty()) return best;
  best_d = static_cast<size_t>(-1);
  for (const auto& c : candidates) {
    if (c.empty() || word.empty() || c[0] != word[0]) continue;
    if (!is_subsequence(c, word) && !is_subsequence(word, c)) continue;
    size_t d = edit_distance(word, c);
    if (d < best_d) best_d = d, best = c;
  }
  return best;
}

std::string describe_json(const nlohmann::json& v) {
  // replace: a message about a bad value must not itself throw on invalid UTF-8 inside it.
  std::string s = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s + " (" + v.type_name() + ")";
}

JsonReader::JsonReader(nlohmann::json obj, std::string file, std::string prefix,
                       std::shared_ptr<const Sources> sources)
    : obj_(std::move(obj)), file_(std::move(file)), prefix_(std::move(prefix)), sources_(std::move(sources)) {
  if (obj_.is_null()) obj_ = nlohmann::json::object();
  if (!obj_.is_object())
    TW_FAIL(source_of(prefix_), ": ", prefix_.empty() ? std::string("the top level") : "\"" + prefix_ + "\"",
            " must be an object, got ", describe_json(obj_));
}

std::string JsonReader::key_path(const std::string& key) const {
  return prefix_.empty() ? key : prefix_ + "." + key;
}

std::string JsonReader::source_of(const std::string& path) const {
  if (sources_) {
    std::string p = path;
    for (;;) {
      auto it = sources_->find(p);
      if (it != sources_->end()) return it->second;
      auto dot = p.find_last_of('.');
      if (dot == std::string::npos) break;
      p.resize(dot);
    }
  }
  return file_;
}

void JsonReader::fail(const std::string& key, const std::string& what) const {
  std::string path = key_path(key);
  TW_FAIL(source_of(path), ": \"", path, "\" ", what);
}

void JsonReader::type_error(const std::string& key, const std::string& expected, const nlohmann::json& got) const {
  fail(key, "must be " + expected + ", got " + describe_json(got));
}

const nlohmann::json* JsonReader::lookup(const std::string& key) {
  if (known_.insert(key).second) known_order_.push_back(key);
  auto it = obj_.find(key);
  return it == obj_.end() ? nullptr : &*it;
}

const nlohmann::json& JsonReader::require(const std::string& key) {
  const nlohmann::json* v = lookup(key);
  if (!v) TW_FAIL(source_of(prefix_), ": missing required key \"", key_path(key), "\"");
  return *v;
}

long long JsonReader::get_integer(const std::string& key, const nlohmann::json& v, long long min,
                                  long long max) const {
  constexpr long long lo = std::numeric_limits<long long>::min(), hi = std::numeric_limits<long long>::max();
  std::string expected = "an integer" + range_str<long long>(min, max, lo, hi, ll_str);
  long long x = 0;
  if (v.is_number_unsigned()) {
    if (v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi)) type_error(key, expected, v);
    x = static_cast<long long>(v.get<std::uint64_t>());
  } else if (v.is_number_integer()) {
    x = v.get<long long>();
  } else if (v.is_number_float()) {
    // JSON writes 1e5 as a float; accept it when it is exactly an integer.
    double d = v.get<double>();
    if (!(std::floor(d) == d && d >= -9.2e18 && d <= 9.2e18)) type_error(key, expected, v);
    x = static_cast<long long>(d);
  } else {
    type_error(key, expected, v);
  }
  if (x < min || x > max) type_error(key, expected, v);
  return x;
}

double JsonReader::get_number(const std::string& key, const nlohmann::json& v, double min, double max) const {
  constexpr double big = std::numeric_limits<double>::max();
  std::string expected = "a number" + range_str<double>(min, max, -big, big, dbl_str);
  if (!v.is_number()) type_error(key, expected, v);
  double x = v.get<double>();
  if (!std::isfinite(x) || x < min || x > max) type_error(key, expected, v);
  return x;
}

std::string JsonReader::check_choice(const std::string& key, const nlohmann::json& v,
                                     const std::vector<std::string>& allowed) const {
  std::string expected = "one of " + join(allowed, ", ");
  if (!v.is_string()) type_error(key, expected, v);
  std::string s = v.get<std::string>();
  if (std::find(allowed.begin(), allowed.end(), s) == allowed.end()) {
    std::string guess = closest_name(s, allowed);
    fail(key, "must be " + expected + ", got " + describe_json(v) +
                  (guess.empty() ? "" : " (did you mean \"" + guess + "\"?)"));
  }
  return s;
}

int JsonReader::get_int(const std::string& key, int def, int min, int max) {
  const nlohmann::json* v = lookup(key);
  return v ? static_cast<int>(get_integer(key, *v, min, max)) : def;
}
long JsonReader::get_long(const std::string& key, long def, long min, long max) {
  const nlohmann::json* v = lookup(key);
  return v ? static_cast<long>(get_integer(key, *v, min, max)) : def;
}
std::uint64_t JsonReader::get_uint64(const std::string& key, std::uint64_t def, std::uint64_t min,
                                     std::uint64_t max) {
  const nlohmann::json* v = lookup(key);
  if (!v) return def;
  std::string expected = "a non-negative integer" +
                         range_str<std::uint64_t>(min, max, 0, std::numeric_limits<std::uint64_t>::max(), u64_str);
  std::uint64_t x = 0;
  if (v->is_number_unsigned()) {
    x = v->get<std::uint64_t>();
  } else if (v->is_number_integer()) {
    if (v->get<long long>() < 0) type_error(key, expected, *v);
    x = static_cast<std::uint64_t>(v->get<long long>());
  } else if (v->is_number_float()) {
    double d = v->get<double>();
    if (!(std::floor(d) == d && d >= 0 && d < 1.8e19)) type_error(key, expected, *v);
    x = static_cast<std::uint64_t>(d);
  } else {
    type_error(key, expected, *v);
  }
  if (x < min || x > max) type_error(key, expected, *v);
  return x;
}
double JsonReader::get_double(const std::string& key, double def, double min, double max) {
  const nlohmann::json* v = lookup(key);
  return v ? get_number(key, *v, min, max) : def;
}
bool JsonReader::get_bool(const std::string& key, bool def) {
  const nlohmann::json* v = lookup(key);
  if (!v) return def;
  if (!v->is_boolean()) type_error(key, "true or false", *v);
  return v->get<bool>();
}
std::string JsonReader::get_string(const std::string& key, const std::string& def) {
  const nlohmann::json* v = lookup(key);
  if (!v) return def;
  if (!v->is_string()) type_error(key, "a string", *v);
  return v->get<std::string>();
}
std::string JsonReader::get_choice(const std::string& key, const std::string& def,
                                   const std::vector<std::string>& allowed) {
  const nlohmann::json* v = lookup(key);
  return v ? check_choice(key, *v, allowed) : def;
}

int JsonReader::require_int(const std::string& key, int min, int max) {
  return static_cast<int>(get_integer(key, require(key), min, max));
}
std::string JsonReader::require_string(const std::string& key) {
  require(key);
  return get_string(key, "");
}

JsonReader JsonReader::child(const std::string& key) {
  const nlohmann::json* v = lookup(key);
  if (v && !v->is_object()) type_error(key, "an object", *v);
  return JsonReader(v ? *v : nlohmann::json::object(), file_, key_path(key), sources_);
}

bool JsonReader::has(const std::string& key) { return lookup(key) != nullptr; }

nlohmann::json JsonReader::raw(const std::string& key) {
  const nlohmann::json* v = lookup(key);
  return v ? *v : nlohmann::json();
}

void JsonReader::finish() const {
  std::string msg;
  for (auto it = obj_.begin(); it != obj_.end(); ++it) {
    if (known_.count(it.key())) continue;
    std::string path = key_path(it.key());
    std::string guess = closest_name(it.key(), known_order_);
    if (!msg.empty()) msg += "\n";
    msg += source_of(path) + ": unknown key \"" + path + "\"; allowed: " +
           (known_order_.empty() ? std::string("(none)") : join(known_order_)) +
           (guess.empty() ? "" : " (did you mean \"" + guess + "\"?)");
  }
  if (!msg.empty()) TW_FAIL(msg);
}

}  // namespace twin
