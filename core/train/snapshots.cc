#include "train/snapshots.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "base/check.h"
#include "train/checkpoint.h"

namespace twin {

namespace fs = std::filesystem;

namespace {
const std::string kPrefix = "model.step", kSuffix = ".bin";

// The step of a snapshot file name, or -1 when the name is not one.
long snapshot_step(const std::string& name) {
  if (name.size() <= kPrefix.size() + kSuffix.size() || name.compare(0, kPrefix.size(), kPrefix) != 0 ||
      name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0)
    return -1;
  const std::string digits = name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return -1;
  return std::stol(digits);
}
}  // namespace

std::vector<std::string> list_snapshots(const std::string& run_dir) {
  const fs::path dir = fs::path(run_dir) / "snapshots";
  std::vector<std::pair<long, std::string>> found;
  if (fs::is_directory(dir))
    for (const auto& e : fs::directory_iterator(dir)) {
      const long step = snapshot_step(e.path().filename().string());
      if (step >= 0) found.emplace_back(step, e.path().string());
    }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& [step, path] : found) out.push_back(std::move(path));
  return out;
}

void save_snapshot(const std::string& run_dir, const ParamStore& store, const nlohmann::json& config, long step,
                   int keep) {
  TW_CHECK(keep > 0, "save_snapshot: keep must be > 0");
  const fs::path dir = fs::path(run_dir) / "snapshots";
  fs::create_directories(dir);
  save_params((dir / (kPrefix + std::to_string(step) + kSuffix)).string(), store, config);
  // Only after the new one is safely written: drop the oldest.
  std::vector<std::string> all = list_snapshots(run_dir);
  for (size_t i = 0; i + static_cast<size_t>(keep) < all.size(); ++i) fs::remove(all[i]);
}

void average_params(const std::vector<std::string>& paths, ParamStore& store) {
  TW_CHECK(!paths.empty(), "average: no parameter file given");
  std::map<std::string, Mat> sum;
  for (const auto& prm : store.all()) sum[prm->name] = Mat::Zero(prm->value.rows(), prm->value.cols());
  for (const auto& path : paths) {
    NamedMats mats = load_named_mats(path);
    TW_CHECK(mats.size() == sum.size(), path, ": holds ", mats.size(), " matrices, the model has ", sum.size(),
             " parameters (HINT: average files of the same model only)");
    for (const auto& [name, m] : mats) {
      auto it = sum.find(name);
      TW_CHECK(it != sum.end(), path, ": parameter '", name, "' is not in the model");
      TW_CHECK(it->second.rows() == m.rows() && it->second.cols() == m.cols(), path, ": parameter '", name, "' is ",
               shape_str(m), " but the model has ", shape_str(it->second));
      it->second += m;
    }
  }
  const Real inv = Real(1) / static_cast<Real>(paths.size());
  for (const auto& prm : store.all()) prm->value = sum.at(prm->name) * inv;
}

}  // namespace twin
