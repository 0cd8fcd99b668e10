#include "ops/dropout.h"

namespace twin {

Mat dropout_mask(Rng& rng, Index rows, Index cols, Real p) {
  TW_CHECK(p >= 0 && p < 1, "dropout: probability ", p, " outside [0, 1)");
  Mat m(rows, cols);
  const Real keep = Real(1) / (Real(1) - p);
  for (Index i = 0; i < m.size(); ++i) m.data()[i] = rng.bernoulli(p) ? Real(0) : keep;
  return m;
}

// y = x ⊙ m         dx += dy ⊙ m
Var dropout(Var x, Real p, Rng& rng) {
  TW_CHECK(p >= 0 && p < 1, "dropout: probability ", p, " outside [0, 1)");
  if (p == 0 || !x.g->training()) return x;
  Mat m = dropout_mask(rng, x.rows(), x.cols(), p);
  Mat y = x.val().cwiseProduct(m);
  return x.g->record("dropout", std::move(y), {x}, [x, m](Graph& g, NodeId self) {
    g.accumulate(x.id, g.grad(self).cwiseProduct(m));
  });
}

}  // namespace twin
