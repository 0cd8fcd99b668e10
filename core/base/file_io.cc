#include "base/file_io.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/check.h"

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

std::string create_file_hint(const std::string& path) { return dir_hint(parent_dir(path)); }

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
