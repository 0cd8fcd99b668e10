// Helpers shared by the test files of both test binaries (twin_tests builds them with the float core,
// twin_gradcheck with the double core, so Real/Mat follow the binary). Header-only: every function is
// inline (or a template) so each binary links one copy.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "base/check.h"
#include "base/real.h"
#include "base/rng.h"

namespace twin::test {

inline constexpr const char* kNoErrorThrown = "<no error thrown>";

// Runs f (any callable) and returns the message of the twin::Error it throws, or kNoErrorThrown.
// Other exceptions propagate, so gtest reports them as such.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return kNoErrorThrown;
}

inline bool contains(const std::string& s, const std::string& sub) { return s.find(sub) != std::string::npos; }

// A task's data section for prepared files in `dir`, with the two keys every task's data requires set (dir, and
// protocol "test") and the rest at their defaults.
template <class DataConfig>
DataConfig data_config_in(const std::string& dir) {
  DataConfig c;
  c.dir = dir;
  c.protocol = "test";
  return c;
}

// Writes bytes exactly (binary) to path.
inline void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// A fresh, empty folder under the system temp directory, created by the constructor and removed with all
// its contents by the destructor (which never throws). The name holds the optional tag, the pid (parallel
// test processes), a per-binary counter (several folders per test) and the current test's name (to find
// a leftover after a crash).
struct TempDir {
  std::filesystem::path path;

  explicit TempDir(const std::string& tag = "") {
    static std::atomic<int> counter{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string test = info ? info->name() : "no_test";
    // A parameterised test's name is "Name/3": keep the folder a single path component.
    for (char& c : test)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
    path = std::filesystem::temp_directory_path() /
           ("twin_" + (tag.empty() ? "" : tag + "_") + std::to_string(::getpid()) + "_" +
            std::to_string(counter++) + "_" + test);
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // A file directly in the folder.
  std::string file(const std::string& name) const { return (path / name).string(); }
  // path / sub; with no sub, the folder itself with a trailing '/'.
  std::string str(const std::string& sub = "") const { return (path / sub).string(); }
  // Writes bytes exactly (binary) to a file directly in the folder; returns its path.
  std::string write(const std::string& name, const std::string& bytes) const {
    write_file(file(name), bytes);
    return file(name);
  }
};

// [steps*B, 1] time-major mask, B = lengths.size(): row t*B + b is 1 where t < lengths[b], else 0.
inline Mat time_major_mask(Index steps, const std::vector<Index>& lengths) {
  const auto batch = static_cast<Index>(lengths.size());
  Mat m = Mat::Zero(steps * batch, 1);
  for (Index t = 0; t < steps; ++t)
    for (Index b = 0; b < batch; ++b) m(t * batch + b, 0) = t < lengths[static_cast<size_t>(b)] ? 1 : 0;
  return m;
}

// Rows t*batch + b for t < n of a time-major x: sequence b alone, as an [n, D] matrix.
inline Mat sequence_rows(const Mat& x, Index b, Index batch, Index n) {
  Mat out(n, x.cols());
  for (Index t = 0; t < n; ++t) out.row(t) = x.row(t * batch + b);
  return out;
}

// [rows, cols] with entry (r, c) = scale·sin(phase + 7r + 3c), computed in double: the golden scripts' gen()
// (tests/golden/authors_cells.py, linear_cells.py), numbers without a random generator.
inline Mat sin_mat(Index rows, Index cols, double scale, double phase) {
  Mat m(rows, cols);
  for (Index r = 0; r < rows; ++r)
    for (Index c = 0; c < cols; ++c)
      m(r, c) = static_cast<Real>(scale * std::sin(phase + 7.0 * static_cast<double>(r) +
                                                   3.0 * static_cast<double>(c)));
  return m;
}

// [rows, cols] uniform(-1, 1) from a fresh Rng(seed).
inline Mat uniform_mat(Index rows, Index cols, std::uint64_t seed) {
  Rng rng(seed);
  Mat m(rows, cols);
  rng.fill_uniform(m, -1, 1);
  return m;
}

// [rows, cols] standard normal drawn from (and advancing) rng.
inline Mat normal_mat(Rng& rng, Index rows, Index cols) {
  Mat m(rows, cols);
  rng.fill_normal(m, 0, 1);
  return m;
}

// Largest |a - b| over all entries; a shape mismatch is a test failure.
inline double max_abs_diff(const Mat& a, const Mat& b) {
  EXPECT_EQ(a.rows(), b.rows());
  EXPECT_EQ(a.cols(), b.cols());
  return static_cast<double>((a - b).cwiseAbs().maxCoeff());
}

}  // namespace twin::test
