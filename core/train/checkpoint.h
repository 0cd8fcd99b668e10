// Checkpoint files (DESIGN §4 "Run folder and checkpoints").
//
// Layout of a .bin file (all integers little-endian):
//   "TWCK"                  4 bytes magic
//   u32 version             kCheckpointVersion
//   u64 header_len          bytes of the JSON header that follows
//   header                  UTF-8 JSON: {"format", "version", "kind", "dtype": "float32", "real", "config",
//                           "meta", "data_bytes", "params": [{"name", "rows", "cols", "offset"}, ...]}
//   data                    float32 row-major blobs; "offset" is in bytes from the start of this section
//   u64 checksum            FNV-1a 64 of every byte before it (magic .. end of data)
// FNV-1a was chosen because it is ten lines with no dependency and any single flipped byte changes it;
// it guards against truncation and corruption, not against an adversary.
//
// Values are stored as float32 whatever Real is: a float build round-trips bit-exactly (the bytes are
// copied); a double build (tests only) rounds to float32 on save.
//
// Files are written with write_text_atomic (temp + fsync + rename). Loads read and validate the whole file
// and build every matrix before touching the destination: a failed load changes nothing.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "base/real.h"

namespace twin {

class ParamStore;

using NamedMats = std::vector<std::pair<std::string, Mat>>;   // same alias as train/task.h, optim/optimizer.h

inline constexpr std::uint32_t kCheckpointVersion = 1;

enum class LoadMode {
  kStrict,    // names and shapes must match exactly, both ways (--resume, --eval-only)
  kPartial,   // (tools and tests) load the params whose names are in both; the others are left (store) or
              // ignored (file). A shape mismatch on a shared name is still an error; at least one must load.
};

struct LoadReport {
  std::vector<std::string> loaded;       // names assigned
  std::vector<std::string> not_in_file;  // store params left as they were (partial mode only)
  std::vector<std::string> not_in_store; // file entries ignored (partial mode only)
};

// Parameters (kind "params") with the resolved config embedded in the header.
void save_params(const std::string& path, const ParamStore& store, const nlohmann::json& config);
LoadReport load_params(const std::string& path, ParamStore& store, LoadMode mode = LoadMode::kStrict);

// Any named matrices (optimiser state: kind "optim"; also usable for combined checkpoints) with free-form
// metadata stored under "meta". load_named_mats reads every kind (e.g. params files, for averaging).
void save_named_mats(const std::string& path, const NamedMats& mats, const nlohmann::json& meta,
                     const std::string& kind = "optim");
NamedMats load_named_mats(const std::string& path, nlohmann::json* header = nullptr);

// The validated header of any checkpoint (checks magic, version, size and checksum).
nlohmann::json read_checkpoint_header(const std::string& path);

// progress.json (human-readable, atomic).
void save_progress(const std::string& path, const nlohmann::json& progress);
nlohmann::json load_progress(const std::string& path);

// FNV-1a 64 (exposed for tests).
std::uint64_t fnv1a64(const void* data, std::size_t n, std::uint64_t h = 0xcbf29ce484222325ULL);

}  // namespace twin
