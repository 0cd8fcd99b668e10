// Adadelta (Zeiler 2012, Algorithm 1) with lr multiplying the update, as in PyTorch (lr = 1 is the paper):
//   E[g²] ← ρ·E[g²] + (1−ρ)·g²
//   Δ     = √(E[Δ²] + ε) / √(E[g²] + ε) · g
//   E[Δ²] ← ρ·E[Δ²] + (1−ρ)·Δ²
//   w     ← w − lr·Δ
// Dense even for row-sparse params (exact, not lazy): both averages of untouched rows decay by ρ.
#include "optim/optimizer.h"

namespace twin {

namespace {

class Adadelta final : public Optimizer {
 public:
  explicit Adadelta(const OptimConfig& cfg)
      : Optimizer(cfg), rho_(static_cast<Real>(cfg.rho)), eps_(static_cast<Real>(cfg.eps)) {}
  std::string name() const override { return "adadelta"; }

 protected:
  std::vector<std::string> slot_names() const override { return {"sq_grad", "sq_delta"}; }

  void update(Param& p, const Mat& g, bool /*sparse*/, std::vector<Mat>& slots, Real lr) override {
    Mat& sq_g = slots[0];  // E[g²], [rows, cols] of p
    Mat& sq_d = slots[1];  // E[Δ²]
    sq_g.array() = rho_ * sq_g.array() + (1 - rho_) * g.array().square();
    delta_ = ((sq_d.array() + eps_).sqrt() / (sq_g.array() + eps_).sqrt() * g.array()).matrix();
    sq_d.array() = rho_ * sq_d.array() + (1 - rho_) * delta_.array().square();
    p.value -= lr * delta_;
  }

 private:
  Real rho_, eps_;
  Mat delta_;  // scratch Δ
};

}  // namespace

std::unique_ptr<Optimizer> make_adadelta(const OptimConfig& cfg) { return std::make_unique<Adadelta>(cfg); }

}  // namespace twin
