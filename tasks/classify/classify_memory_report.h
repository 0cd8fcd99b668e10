// classify's --memory N / --memory-file F (classify_task.h): which sentences the analysis of classify_memory.h
// runs on, and run_dir/memory.json, the report of their memory weights that plots/memory_weights.py draws.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "classify_data.h"
#include "classify_model.h"
#include "data/vocab.h"

namespace twin::classify {

// memory.json: tolerance of the decomposition check (relative, float) for the exact (identity-output) cells.
inline constexpr double kMemoryTolerance = 1e-5;

// The two flags as given on the command line.
struct MemoryRequest {
  int n = -1;           // --memory N; -1 = not given
  std::string file;     // --memory-file; "" = not given
  bool wanted() const { return n >= 0 || !file.empty(); }
};

// What the analysis reads of a trained classifier and its data.
struct MemorySubject {
  const ClassifyModel& model;
  const ClassifyModelConfig& config;
  const Vocab& vocab;
  const ClassifyDataConfig& data;   // lowercase and length policy for --memory-file's lines; the test split's name
  const std::vector<Example>& test;
  int num_labels;
};

// The flags of `task_flags` (CliArgs::task_flags), checked before training starts: N a number, the file there, and
// a model the analysis supports (memory_unsupported_reason).
MemoryRequest parse_memory_request(const std::map<std::string, std::string>& task_flags, const ClassifyModelConfig& m);

// The sentences a request chooses, with their sources ("test:12": the test file's line; "file:3"): the sentences of
// --memory-file, then the first test sentence with "great" (at most 25 tokens; a positive one if there is one;
// only without --memory-file) and the first N test sentences.
void memory_sentences(const MemoryRequest& req, const MemorySubject& s, std::vector<Example>& sentences,
                      std::vector<std::string>& sources);

// memory.json's object for `sentences` (labels < 0: unknown), `sources` naming where each came from.
nlohmann::json memory_report(const MemorySubject& s, const std::vector<Example>& sentences,
                             const std::vector<std::string>& sources);

// Writes run_dir/memory.json for the request and returns summary.json's "memory" entry.
nlohmann::json write_memory_json(const MemoryRequest& req, const MemorySubject& s, const std::string& run_dir);

}  // namespace twin::classify
