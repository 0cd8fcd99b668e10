// Adam (Kingma & Ba 2015, Algorithm 1); L2 weight decay is already folded into g by Optimizer::step.
//   m ← β1·m + (1−β1)·g
//   v ← β2·v + (1−β2)·g²
//   w ← w − lr · m̂ / (√v̂ + ε),   m̂ = m / (1 − β1^t),  v̂ = v / (1 − β2^t),  t = step count (1-based)
// Dense even for row-sparse params (exact, not lazy): m and v of untouched rows decay and those rows still
// move by lr·m̂/(√v̂+ε), as with PyTorch's dense Adam.
#include <cmath>

#include "optim/optimizer.h"

namespace twin {

namespace {

class Adam final : public Optimizer {
 public:
  explicit Adam(const OptimConfig& cfg)
      : Optimizer(cfg),
        b1_(static_cast<Real>(cfg.beta1)),
        b2_(static_cast<Real>(cfg.beta2)),
        eps_(static_cast<Real>(cfg.eps)) {}
  std::string name() const override { return "adam"; }

 protected:
  std::vector<std::string> slot_names() const override { return {"m", "v"}; }

  void update(Param& p, const Mat& g, bool /*sparse*/, std::vector<Mat>& slots, Real lr) override {
    Mat& m = slots[0];  // [rows, cols] of p
    Mat& v = slots[1];
    // Bias corrections in double: β2^t is close to 1 for many steps and float loses digits in 1 − β2^t.
    const double t = static_cast<double>(steps_);
    const auto bc1 = static_cast<Real>(1.0 - std::pow(cfg_.beta1, t));
    const auto bc2 = static_cast<Real>(1.0 - std::pow(cfg_.beta2, t));
    m = b1_ * m + (1 - b1_) * g;
    v.array() = b2_ * v.array() + (1 - b2_) * g.array().square();
    p.value.array() -= lr * (m.array() / bc1) / ((v.array() / bc2).sqrt() + eps_);
  }

 private:
  Real b1_, b2_, eps_;
};

}  // namespace

std::unique_ptr<Optimizer> make_adam(const OptimConfig& cfg) { return std::make_unique<Adam>(cfg); }

}  // namespace twin
