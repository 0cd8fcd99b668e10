// SGD with optional heavy-ball momentum (PyTorch convention: no dampening, no Nesterov):
//   μ = 0:  w ← w − lr·g                    (no state)
//   μ > 0:  v ← μ·v + g;  w ← w − lr·v      (slot "v", starts at 0, so the first step is w − lr·g)
// Row-sparse params without momentum update only the touched rows: the other rows have g = 0, so this is
// exactly the dense update and costs O(touched rows) instead of O(vocabulary) per step.
#include "optim/optimizer.h"

namespace twin {

namespace {

class Sgd final : public Optimizer {
 public:
  explicit Sgd(const OptimConfig& cfg) : Optimizer(cfg), mu_(static_cast<Real>(cfg.momentum)) {}
  std::string name() const override { return "sgd"; }

 protected:
  std::vector<std::string> slot_names() const override {
    if (mu_ == 0) return {};
    return {"v"};
  }

  void update(Param& p, const Mat& g, bool sparse, std::vector<Mat>& slots, Real lr) override {
    if (mu_ == 0) {
      if (sparse) {
        for (Index r = 0; r < p.value.rows(); ++r)
          if (p.row_touched(r)) p.value.row(r) -= lr * g.row(r);
      } else {
        p.value -= lr * g;
      }
      return;
    }
    // With momentum every row with a nonzero velocity moves, touched or not: dense.
    Mat& v = slots[0];  // [rows, cols] of p
    v = mu_ * v + g;
    p.value -= lr * v;
  }

 private:
  Real mu_;
};

}  // namespace

std::unique_ptr<Optimizer> make_sgd(const OptimConfig& cfg) { return std::make_unique<Sgd>(cfg); }

}  // namespace twin
