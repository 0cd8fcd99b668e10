#include "train/run_dir.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/check.h"
#include "graph/param.h"

namespace twin {

namespace fs = std::filesystem;

namespace {
std::string sys_error() { return std::strerror(errno); }
}  // namespace

RunDir::RunDir(const std::string& dir) : dir_(dir) {
  TW_CHECK(!dir.empty(), "RunDir: empty run folder path (HINT: set \"out_dir\" or \"name\" in the experiment)");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    std::error_code lec;   // a dangling link fails with a bare "File exists", which does not say what to fix
    if (fs::is_symlink(dir, lec))
      TW_FAIL("cannot create run folder ", dir, ": it is a symbolic link to ", fs::read_symlink(dir, lec).string(),
              ", which is not a folder");
    TW_FAIL("cannot create run folder ", dir, ": ", ec ? ec.message() : std::string("a file of that name exists"));
  }
}

std::string RunDir::path(const std::string& file) const { return join(dir_, file); }
std::string RunDir::join(const std::string& dir, const std::string& file) { return (fs::path(dir) / file).string(); }

void RunDir::write_params_table(const ParamStore& store) const { write_text_atomic(path("params.txt"), store.table()); }

MetricsLog::MetricsLog(const std::string& path) : path_(path) {
  // A crash while writing may have left a torn last line; start ours on a fresh line so it stays parseable.
  bool need_newline = false;
  {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (in && in.tellg() > 0) {
      in.seekg(-1, std::ios::end);
      need_newline = in.get() != '\n';
    }
  }
  f_ = std::fopen(path.c_str(), "a");
  if (!f_) TW_FAIL("cannot open metrics log ", path, " for appending: ", sys_error(), create_file_hint(path));
  if (need_newline) std::fputc('\n', f_);
  const std::string text = read_file(path);
  rows_ = static_cast<long>(std::count(text.begin(), text.end(), '\n')) + (need_newline ? 1 : 0);
}

MetricsLog::~MetricsLog() {
  if (f_) std::fclose(f_);
}

void MetricsLog::append(const nlohmann::json& record) {
  TW_CHECK(record.is_object(), "MetricsLog::append: a record must be a JSON object, got ", record.type_name());
  // Invalid UTF-8 (e.g. a corpus token in a message) must not kill a run at logging time.
  std::string line = record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  line += '\n';
  if (std::fwrite(line.data(), 1, line.size(), f_) != line.size() || std::fflush(f_) != 0)
    TW_FAIL("cannot append to metrics log ", path_, ": ", sys_error());
  ++rows_;
}

int truncate_metrics_after(const std::string& path, long step) {
  if (!file_exists(path)) return 0;
  std::istringstream in(read_file(path));
  std::string line, kept;
  int dropped = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    bool keep = j.is_object() && !(j.contains("step") && j["step"].is_number() && j["step"].get<double>() > step);
    if (keep) kept += line + '\n';
    else ++dropped;
  }
  write_text_atomic(path, kept);
  return dropped;
}

int truncate_metrics_rows(const std::string& path, long rows) {
  if (!file_exists(path)) return 0;
  const std::string text = read_file(path);
  size_t end = 0;
  long kept = 0;
  while (kept < rows) {
    const size_t nl = text.find('\n', end);
    if (nl == std::string::npos) break;
    end = nl + 1;
    ++kept;
  }
  // Fewer lines than the checkpoint counted (lost in a power cut: the log is flushed, not fsynced): keep them.
  if (kept < rows || end == text.size()) return 0;
  const int dropped = static_cast<int>(std::count(text.begin() + static_cast<long>(end), text.end(), '\n')) +
                      (text.back() != '\n' ? 1 : 0);
  write_text_atomic(path, text.substr(0, end));
  return dropped;
}

}  // namespace twin
