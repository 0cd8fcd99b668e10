// Named trainable matrices. Names are hierarchical ("nmt/enc/fwd/atr/U") and unique; creation order is
// stable, so checkpoints and optimiser state (both keyed by name) are deterministic.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/real.h"
#include "base/rng.h"

namespace twin {

using Init = std::function<void(Mat&, Rng&)>;

struct Param {
  std::string name;
  Mat value;
  Mat grad;                    // same shape as value; zeroed by ParamStore::zero_grad()
  bool trainable = true;
  // Row-sparse gradients (embeddings): ops that touch only some rows mark them, so optimisers and
  // zero_grad can skip the rest. `all_touched` means a dense op wrote the gradient.
  std::vector<std::uint8_t> touched;
  bool all_touched = false;

  void mark_row(Index r) {
    if (touched.empty()) touched.assign(static_cast<size_t>(value.rows()), 0);
    touched[static_cast<size_t>(r)] = 1;
  }
  void mark_all() { all_touched = true; }
  bool row_touched(Index r) const {
    return all_touched || (!touched.empty() && touched[static_cast<size_t>(r)]);
  }
  Index size() const { return value.size(); }
};

class ParamStore {
 public:
  explicit ParamStore(std::uint64_t init_seed = 1) : init_rng_(init_seed) {}
  ParamStore(const ParamStore&) = delete;
  ParamStore& operator=(const ParamStore&) = delete;

  // Adds a parameter; the name must be unique. Initialised with `init` drawing from the store's Rng.
  Param& add(const std::string& name, Index rows, Index cols, const Init& init);
  Param* find(const std::string& name);
  const Param* find(const std::string& name) const;
  Param& get(const std::string& name);  // throws naming the missing name and the first stored ones
  const std::vector<std::unique_ptr<Param>>& all() const { return params_; }
  std::vector<Param*> trainable();

  void zero_grad();
  Index total_size() const;
  std::string table() const;  // name, shape, count, total (printed at start-up)

 private:
  std::vector<std::unique_ptr<Param>> params_;
  std::unordered_map<std::string, Param*> by_name_;
  Rng init_rng_;
};

// "a", "b" -> "a/b"; empty parts are skipped.
std::string join_name(const std::string& scope, const std::string& name);

}  // namespace twin
