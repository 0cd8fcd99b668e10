#include "train/run_dir.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
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

std::string parent_dir(const std::string& path) {
  fs::path dir = fs::path(path).parent_path();
  return dir.empty() ? "." : dir.string();
}

// Why a file in `dir` cannot be created, in words a user can act on.
std::string dir_hint(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return " (HINT: the directory " + dir + " does not exist)";
  if (!fs::is_directory(dir, ec)) return " (HINT: " + dir + " is not a directory)";
  if (::access(dir.c_str(), W_OK) != 0) return " (HINT: the directory " + dir + " is not writable)";
  return "";
}

}  // namespace

void write_text_atomic(const std::string& path, const std::string& data) {
  static std::atomic<unsigned> counter{0};
  const std::string dir = parent_dir(path);
  // Hidden temp name in the same directory (rename is only atomic within one filesystem); pid + counter
  // keep concurrent writers (tests run in parallel processes) apart.
  const std::string tmp = (fs::path(dir) / ("." + fs::path(path).filename().string() + ".tmp-" +
                                            std::to_string(::getpid()) + "-" + std::to_string(counter++)))
                              .string();
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) TW_FAIL("cannot write ", path, ": creating ", tmp, " failed: ", sys_error(), dir_hint(dir));

  auto abandon = [&](const std::string& what) {
    std::string err = sys_error();
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    TW_FAIL("cannot write ", path, ": ", what, " failed: ", err, " (the previous file, if any, is unchanged)");
  };
  const char* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      abandon("write");
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) abandon("fsync");
  int rc = ::close(fd);
  fd = -1;
  if (rc != 0) abandon("close");
  if (::rename(tmp.c_str(), path.c_str()) != 0) abandon("rename to the final name");
  // Make the rename itself durable. Some filesystems refuse fsync on a directory (EINVAL): the data is
  // already safe then, so only real I/O errors count.
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    int drc = ::fsync(dfd);
    int derr = errno;
    ::close(dfd);
    if (drc != 0 && derr == EIO) TW_FAIL("cannot write ", path, ": fsync of directory ", dir, " failed: I/O error");
  }
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) TW_FAIL("cannot read ", path, ": ", sys_error());
  std::ostringstream os;
  os << in.rdbuf();
  if (in.bad()) TW_FAIL("cannot read ", path, ": read error");
  return os.str();
}

bool file_exists(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

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
  if (!f_) TW_FAIL("cannot open metrics log ", path, " for appending: ", sys_error(), dir_hint(parent_dir(path)));
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

int remove_stale_temp_files(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return 0;
  int removed = 0;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    const size_t at = name.rfind(".tmp-");
    if (name.empty() || name[0] != '.' || at == std::string::npos) continue;
    const long pid = std::strtol(name.c_str() + at + 5, nullptr, 10);
    // Alive (or not ours to signal): leave it; ESRCH: its writer is gone, the file can never be renamed.
    if (pid <= 0 || pid == ::getpid() || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    if (fs::remove(e.path(), ec)) ++removed;
  }
  return removed;
}

}  // namespace twin
