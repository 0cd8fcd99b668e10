// CSV beside the benchmark tools' markdown tables (speed, speed nmt, gemm_bench): their JSON reports hold a
// list of flat records, and the CSV is that list, one row per record, so the numbers load into a
// spreadsheet or pandas without parsing markdown.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace twin {

// RFC 4180 CSV of `records` (a JSON array of flat objects). Columns: `first` in that order (those present in
// some record), then every other key in sorted order; a record without a key leaves the cell empty. Strings
// are quoted when they hold a comma, quote or line break; numbers keep full precision; null is empty.
// Throws twin::Error naming the record and key when a value is an object or array, or a record is no object.
std::string records_csv(const nlohmann::json& records, const std::vector<std::string>& first = {});

// The record list of one of our benchmark reports: "records" (build/bin/speed) or "rows" (speed nmt,
// gemm_bench). Throws twin::Error naming `label` when there is neither.
const nlohmann::json& report_records(const nlohmann::json& report, const std::string& label);

}  // namespace twin
