// Adam on one fixed batch for the model tests' "training on a toy batch lowers its loss" (test_classify_model,
// test_snli_model, test_rc_model): `steps` steps at `lr`, the graph cleared and the gradients zeroed before each,
// `loss(g, rng)` building the [1, 1] loss; returns the losses of the first and the last step (before their
// updates), so a test can ask for a drop and go on to check predictions.
#pragma once
#include "graph/graph.h"
#include "graph/param.h"
#include "optim/optimizer.h"

namespace twin::test {

struct FirstLastLoss {
  Real first = 0, last = 0;
};

template <class LossFn>   // Var (Graph&, Rng&)
FirstLastLoss adam_on_one_batch(ParamStore& store, int steps, double lr, LossFn&& loss) {
  OptimConfig oc;
  oc.name = OptimKind::kAdam;
  oc.lr = lr;
  auto opt = make_optimizer(oc);
  Graph g;
  Rng rng(1);
  FirstLastLoss out;
  for (int step = 0; step < steps; ++step) {
    g.clear();
    store.zero_grad();
    Var l = loss(g, rng);
    out.last = l.val()(0, 0);
    if (step == 0) out.first = out.last;
    g.backward(l);
    opt->step(store, static_cast<Real>(oc.lr));
  }
  return out;
}

}  // namespace twin::test
