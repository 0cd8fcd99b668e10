// Adagrad (Duchi, Hazan & Singer 2011), in PyTorch's form (ε outside the root):
//   s ← s + g²;   w ← w − lr · g / (√s + ε)      s starts at optim.initial_accumulator
// Row-sparse params update only the touched rows. That is exact: for g = 0 the accumulator does not change
// and the step is 0, so the untouched rows' dense update is the identity.
#include "optim/optimizer.h"

namespace twin {

namespace {

class Adagrad final : public Optimizer {
 public:
  explicit Adagrad(const OptimConfig& cfg) : Optimizer(cfg), eps_(static_cast<Real>(cfg.eps)) {}
  std::string name() const override { return "adagrad"; }

 protected:
  std::vector<std::string> slot_names() const override { return {"sum"}; }
  Real slot_init() const override { return static_cast<Real>(cfg_.initial_accumulator); }

  void update(Param& p, const Mat& g, bool sparse, std::vector<Mat>& slots, Real lr) override {
    Mat& s = slots[0];  // [rows, cols] of p
    if (sparse) {
      for (Index r = 0; r < p.value.rows(); ++r)
        if (p.row_touched(r)) update_rows(p.value.row(r), g.row(r), s.row(r), lr);
    } else {
      update_rows(p.value, g, s, lr);
    }
  }

 private:
  template <typename W, typename G, typename S>
  void update_rows(W&& w, const G& g, S&& s, Real lr) const {
    s.array() += g.array().square();
    w.array() -= lr * g.array() / (s.array().sqrt() + eps_);
  }

  Real eps_;
};

}  // namespace

std::unique_ptr<Optimizer> make_adagrad(const OptimConfig& cfg) { return std::make_unique<Adagrad>(cfg); }

}  // namespace twin
