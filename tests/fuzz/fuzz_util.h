// Shared helpers of the libFuzzer targets in this folder (README.md here says how to build and run them).
//
// The readers under test take paths, not buffers, so each input is written to files in a per-process scratch
// folder in /dev/shm (RAM: no disk writes at thousands of inputs per second) and the reader is called on them.
// Several files per input (a tag file beside its text, a base config beside the extending one) come from one
// input split on kSep, a separator that is easy to type in a seed and that the dictionaries hold, so the
// fuzzer can move text between the files.
//
// The contract being fuzzed: a malformed file ends in twin::Error (a message for the user), never in a crash,
// a sanitizer report, another exception type, a hang or a silently wrong result. So expect_error_or_ok()
// catches twin::Error only; anything else escapes to libFuzzer, which reports it with the input.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "base/check.h"

namespace twin::fuzz {

inline constexpr std::string_view kSep = "\n#--#\n";

// /dev/shm/twinrnn-fuzz-<pid> (or $TMPDIR when /dev/shm is missing); removed at exit. The path lives on the
// heap on purpose: the atexit handler runs after function-local statics are destroyed.
inline const std::string& scratch_dir() {
  static const std::string* dir = [] {
    namespace fs = std::filesystem;
    const fs::path root = fs::is_directory("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
    const fs::path d = root / ("twinrnn-fuzz-" + std::to_string(::getpid()));
    fs::create_directories(d);
    auto* s = new std::string(d.string());
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(scratch_dir(), ec);
    });
    return s;
  }();
  return *dir;
}

// Writes `bytes` to <scratch>/<name> (replacing it) and returns the path.
inline std::string put_file(const std::string& name, std::string_view bytes) {
  const std::string path = scratch_dir() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    std::fprintf(stderr, "fuzz harness: cannot write %s\n", path.c_str());
    std::abort();   // a harness problem, not a finding: stop loudly rather than fuzz nothing
  }
  return path;
}

inline void remove_file(const std::string& name) {
  std::error_code ec;
  std::filesystem::remove(scratch_dir() + "/" + name, ec);
}

// The input cut at each kSep into at most `max_parts` parts (the last part keeps any further separators).
inline std::vector<std::string_view> split_parts(const std::uint8_t* data, std::size_t size, std::size_t max_parts) {
  std::string_view s(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < max_parts) {
    const std::size_t at = s.find(kSep);
    if (at == std::string_view::npos) break;
    parts.push_back(s.substr(0, at));
    s.remove_prefix(at + kSep.size());
  }
  parts.push_back(s);
  return parts;
}

// Runs f; a twin::Error is the expected outcome for bad input, except an internal-invariant failure
// (TW_DCHECK's "internal: " messages), which means the reader let bad data through to code that trusts it.
template <class F>
bool expect_error_or_ok(F&& f) {
  try {
    f();
    return true;
  } catch (const twin::Error& e) {
    const std::string_view msg = e.what();
    if (msg.starts_with("internal: ") || msg.empty()) {
      std::fprintf(stderr, "fuzz: internal check failed on this input: %s\n", e.what());
      std::abort();
    }
    return false;
  }
}

}  // namespace twin::fuzz
