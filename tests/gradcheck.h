// Double-precision finite-difference gradient checks (DESIGN §5.5).
//  - loss = Σ R ⊙ y with a fixed random R (asymmetric upstream gradients);
//  - central differences for every entry of every registered input and parameter;
//  - the accumulation contract: grads are pre-filled with random G0 and the check is grad - G0 == numeric;
//  - the first-write path: the same gradients again with every input behind a pass-through node and take()
//    buffers poisoned with NaN (an op that reads a fresh gradient or assigns only part of it shows);
//  - every op recorded by the function under test is noted for the coverage gate (grad_main.cc).
#pragma once
#include <array>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "graph/graph.h"

namespace twin::test {

struct GradCheckOptions {
  double eps = 1e-6;
  double atol = 1e-7;
  double rtol = 1e-5;
  std::vector<double> scales = {0.1, 1.0, 4.0};   // inputs are rescaled and the check repeated
  double avoid_kinks_near = 0;                      // resample input entries with |x| below this (relu, max)
};

class GradCheck {
 public:
  explicit GradCheck(std::uint64_t seed = 7);
  struct Input {
    Param* p;
    Var in(Graph& g) const;   // the parameter, or (in check()'s second analytic pass) a node it feeds
  };
  Input input(Index rows, Index cols);       // a random input that gets gradient-checked
  void also_perturb(ParamStore& store);      // check every parameter of a model too
  void check(const std::function<Var(Graph&)>& f, GradCheckOptions opt = {});
  double max_abs_error() const { return max_err_; }

  static std::set<std::string>& checked_ops();   // ops seen by any check so far
  static bool& wrap_inputs();                     // Input::in() returns a pass-through node

 private:
  std::vector<Param*> inputs_;        // rescaled by `scales`
  std::vector<Param*> params_;        // perturbed but not rescaled
  ParamStore own_;
  Rng rng_;
  double max_err_ = 0;
};

struct Shape {
  Index rows, cols;
};

// The form most op checks take: one random input per shape (drawn in order, as gc.input would), passed to `f`
// as Vars of the graph under check, and `f`'s output checked:
//   check_op({{3, 4}, {4, 2}}, [](Var x, Var w) { return matmul(x, w); });
template <size_t N, class F>
void check_op(const Shape (&shapes)[N], F f, GradCheckOptions opt = {}) {
  GradCheck gc;
  std::array<GradCheck::Input, N> in;
  for (size_t i = 0; i < N; ++i) in[i] = gc.input(shapes[i].rows, shapes[i].cols);
  gc.check([&](Graph& g) {
    return [&]<size_t... I>(std::index_sequence<I...>) { return f(in[I].in(g)...); }(std::make_index_sequence<N>{});
  }, opt);
}

}  // namespace twin::test
