// The run folder (DESIGN §4 "Run folder and checkpoints", §9): config.resolved.json, command.txt,
// params.txt, metrics.jsonl, checkpoints, progress.json. Every file except the append-only metrics log is
// written with write_text_atomic (base/file_io.h, included here for the files that write through it), so a
// crash leaves either the old or the new file, never half of one.
#pragma once
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "base/file_io.h"

namespace twin {

class ParamStore;

class RunDir {
 public:
  // Creates the folder and its parents (an existing folder is fine: resume writes into it).
  explicit RunDir(const std::string& dir);
  const std::string& path() const { return dir_; }
  std::string path(const std::string& file) const;   // dir/file
  static std::string join(const std::string& dir, const std::string& file);   // the same without creating dir
  // params.txt: the ParamStore's table (name, shape, count, total).
  void write_params_table(const ParamStore& store) const;

 private:
  std::string dir_;
};

// metrics.jsonl: one JSON object per line (step, epoch, split, loss, ppl|acc|f1|bleu, lr, grad_norm, ...).
// Opened in append mode so a resumed run continues the file; each line is flushed as it is written, so a
// crash loses at most the line being written.
class MetricsLog {
 public:
  explicit MetricsLog(const std::string& path);
  ~MetricsLog();
  MetricsLog(const MetricsLog&) = delete;
  MetricsLog& operator=(const MetricsLog&) = delete;

  void append(const nlohmann::json& record);   // must be an object
  const std::string& path() const { return path_; }
  // Lines in the file (those found at open + those appended): a checkpoint records it, so a resume can
  // drop exactly the lines written after that checkpoint.
  long rows() const { return rows_; }

 private:
  std::string path_;
  std::FILE* f_ = nullptr;
  long rows_ = 0;
};

// Resume support: keeps only the records of `path` whose "step" is <= `step` (lines written after the
// checkpoint we resume from would otherwise appear twice) and drops a torn last line. Missing file: no-op.
// Returns the number of records dropped.
int truncate_metrics_after(const std::string& path, long step);
// Resume support, exact form: keeps the first `rows` lines of `path` (MetricsLog::rows() when the checkpoint
// was written). Lines at the same step as the checkpoint but written after it (an end-of-epoch evaluation)
// are dropped too, which the step-based form cannot do. Missing file: no-op. Returns the lines dropped.
int truncate_metrics_rows(const std::string& path, long rows);

}  // namespace twin
