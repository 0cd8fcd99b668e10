#include "gradcheck.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ops/arith.h"

namespace twin::test {

std::set<std::string>& GradCheck::checked_ops() {
  static std::set<std::string> ops;
  return ops;
}

GradCheck::GradCheck(std::uint64_t seed) : own_(seed), rng_(seed * 7919 + 1) {}

bool& GradCheck::wrap_inputs() {
  static bool wrap = false;
  return wrap;
}

Var GradCheck::Input::in(Graph& g) const {
  Var x = g.param(*p);
  if (!wrap_inputs()) return x;
  // y = x, dx += dy: a node of its own, so the op under check meets an untouched gradient.
  return g.record("gradcheck_pass_through", x.val(), {x}, [x](Graph& gr, NodeId self) { gr.grad(x.id) += gr.grad(self); });
}

GradCheck::Input GradCheck::input(Index rows, Index cols) {
  Param& p = own_.add("input" + std::to_string(inputs_.size()), rows, cols, [](Mat& m, Rng& r) { r.fill_normal(m, 0, 1); });
  inputs_.push_back(&p);
  return {&p};
}

void GradCheck::also_perturb(ParamStore& store) {
  for (auto& p : store.all()) params_.push_back(p.get());
}

namespace {
double weighted_sum(const Mat& y, const Mat& r) { return (y.array() * r.array()).sum(); }
}  // namespace

void GradCheck::check(const std::function<Var(Graph&)>& f, GradCheckOptions opt) {
  std::vector<Mat> base;
  for (Param* p : inputs_) base.push_back(p->value);
  std::vector<Param*> all = inputs_;
  all.insert(all.end(), params_.begin(), params_.end());

  for (double sc : opt.scales) {
    for (size_t i = 0; i < inputs_.size(); ++i) {
      inputs_[i]->value = base[i] * static_cast<Real>(sc);
      if (opt.avoid_kinks_near > 0)
        for (Index k = 0; k < inputs_[i]->value.size(); ++k)
          while (std::abs(inputs_[i]->value.data()[k]) < opt.avoid_kinks_near)
            inputs_[i]->value.data()[k] = rng_.normal(0, static_cast<Real>(sc));
    }
    // Analytic passes, grads pre-filled with G0. The first feeds the inputs to `f` as parameters, whose gradients
    // every backward ADDS to (the accumulation contract); the second through a pass-through node each, so the ops
    // under check write gradients nobody has touched yet (Graph::grad_out's fresh, assigned path) into buffers
    // poisoned with NaN. Both must agree.
    Mat R;
    std::vector<Mat> g0;
    for (Param* p : all) {
      Mat r(p->value.rows(), p->value.cols());
      rng_.fill_normal(r, 0, 1);
      g0.push_back(r);
    }
    auto analytic_pass = [&](bool through) {
      for (size_t pi = 0; pi < all.size(); ++pi) {
        all[pi]->grad = g0[pi];
        all[pi]->touched.clear();
        all[pi]->all_touched = false;
      }
      Graph g(Mode::kTrain);
      g.poison_takes();
      wrap_inputs() = through;
      Var y = f(g);
      wrap_inputs() = false;
      const size_t n_ops = g.size();
      for (size_t id = 0; id < n_ops; ++id) checked_ops().insert(g.op(static_cast<NodeId>(id)));
      if (R.size() == 0) {
        R.resize(y.rows(), y.cols());
        rng_.fill_normal(R, 0, 1);
      }
      Var loss = sum_all(y * g.constant(R));
      g.backward(loss);
      std::vector<Mat> out;
      for (size_t pi = 0; pi < all.size(); ++pi) out.push_back(all[pi]->grad - g0[pi]);
      return out;
    };
    const std::vector<Mat> through = analytic_pass(true);
    const std::vector<Mat> analytics = analytic_pass(false);
    for (size_t pi = 0; pi < all.size(); ++pi)
      for (Index k = 0; k < analytics[pi].size(); ++k) {
        const double a = analytics[pi].data()[k], b = through[pi].data()[k];
        if (!(std::abs(a - b) <= opt.atol + opt.rtol * std::max(std::abs(a), std::abs(b)))) {
          ADD_FAILURE() << "gradient of '" << all[pi]->name << "' entry " << k << " at input scale " << sc
                        << ": " << a << " when the inputs are parameters but " << b
                        << " when they pass through a node first (an op's first write into a fresh gradient)";
          return;
        }
      }
    // Numeric pass, entry by entry.
    for (size_t pi = 0; pi < all.size(); ++pi) {
      Param* p = all[pi];
      const Mat& analytic = analytics[pi];
      for (Index k = 0; k < p->value.size(); ++k) {
        const Real orig = p->value.data()[k];
        auto eval = [&](Real v) {
          p->value.data()[k] = v;
          Graph g(Mode::kTrain);   // kTrain so dropout-style ops behave as in the analytic pass
          return weighted_sum(f(g).val(), R);
        };
        const double plus = eval(orig + static_cast<Real>(opt.eps));
        const double minus = eval(orig - static_cast<Real>(opt.eps));
        p->value.data()[k] = orig;
        const double numeric = (plus - minus) / (2 * opt.eps);
        const double a = analytic.data()[k];
        const double err = std::abs(a - numeric);
        max_err_ = std::max(max_err_, err);
        const double tol = opt.atol + opt.rtol * std::max(std::abs(a), std::abs(numeric));
        if (err > tol) {
          ADD_FAILURE() << "gradient mismatch for '" << p->name << "' entry " << k << " at input scale " << sc
                        << ": analytic " << a << " numeric " << numeric << " (|diff| " << err << " > " << tol << ")";
          return;  // one report per check is enough to locate the bug
        }
      }
    }
  }
  for (size_t i = 0; i < inputs_.size(); ++i) inputs_[i]->value = base[i];
}

}  // namespace twin::test
