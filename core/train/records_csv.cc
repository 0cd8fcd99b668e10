#include "train/records_csv.h"

#include <algorithm>
#include <set>

#include "base/check.h"

namespace twin {

namespace {

std::string csv_field(const nlohmann::json& v, size_t row, const std::string& key) {
  if (v.is_null()) return "";
  if (v.is_object() || v.is_array())
    TW_FAIL("record ", row, ", key \"", key, "\": a CSV cell must be a number, string or bool, got ",
            v.is_object() ? "an object" : "an array");
  if (!v.is_string()) return v.dump();   // numbers round-trip (nlohmann prints shortest exact form)
  const std::string s = v.get<std::string>();
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

std::string records_csv(const nlohmann::json& records, const std::vector<std::string>& first) {
  TW_CHECK(records.is_array(), "records must be a JSON array, got ", records.type_name());
  std::set<std::string> keys;
  for (size_t i = 0; i < records.size(); ++i) {
    TW_CHECK(records[i].is_object(), "record ", i, " must be a JSON object, got ", records[i].type_name());
    for (const auto& [k, v] : records[i].items()) keys.insert(k);
  }
  std::vector<std::string> cols;
  for (const auto& k : first)
    if (keys.count(k) && std::find(cols.begin(), cols.end(), k) == cols.end()) cols.push_back(k);
  for (const auto& k : keys)
    if (std::find(cols.begin(), cols.end(), k) == cols.end()) cols.push_back(k);
  std::string out;
  for (size_t c = 0; c < cols.size(); ++c) out += (c ? "," : "") + csv_field(cols[c], 0, "(header)");
  out += "\n";
  for (size_t i = 0; i < records.size(); ++i) {
    for (size_t c = 0; c < cols.size(); ++c) {
      const auto it = records[i].find(cols[c]);
      out += (c ? "," : "") + (it == records[i].end() ? std::string() : csv_field(*it, i, cols[c]));
    }
    out += "\n";
  }
  return out;
}

const nlohmann::json& report_records(const nlohmann::json& report, const std::string& label) {
  TW_CHECK(report.is_object(), label, ": expected a JSON object with \"records\" or \"rows\", got ",
           report.type_name());
  for (const char* key : {"records", "rows"}) {
    const auto it = report.find(key);
    if (it != report.end()) {
      TW_CHECK(it->is_array(), label, ": \"", key, "\" must be an array, got ", it->type_name());
      return *it;
    }
  }
  TW_FAIL(label, ": no \"records\" or \"rows\" list (not a speed, speed nmt or gemm_bench report)");
}

}  // namespace twin
