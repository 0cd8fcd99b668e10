#include "optim/clip.h"

#include <cmath>

namespace twin {

namespace {

bool row_sparse(const Param& p) { return !p.all_touched && !p.touched.empty(); }

// Calls f(row) for each row of p.grad that may be nonzero: all rows, or only the touched ones. Row by row
// so that the norm can be summed in double without a double copy of a vocabulary-sized matrix.
template <typename F>
void for_grad_rows(Param& p, F&& f) {
  const bool sparse = row_sparse(p);
  for (Index r = 0; r < p.grad.rows(); ++r)
    if (!sparse || p.touched[static_cast<size_t>(r)]) f(p.grad.row(r));
}

}  // namespace

Real global_grad_norm(ParamStore& store) {
  double sq = 0;
  for (const auto& p : store.all()) {
    if (!p->trainable) continue;
    for_grad_rows(*p, [&](auto&& g) { sq += static_cast<double>(g.squaredNorm()); });
  }
  return static_cast<Real>(std::sqrt(sq));
}

Real clip_global_norm(ParamStore& store, Real max_norm) {
  const Real norm = global_grad_norm(store);
  if (max_norm <= 0 || !std::isfinite(norm) || norm <= max_norm) return norm;
  const Real scale = max_norm / norm;
  for (const auto& p : store.all()) {
    if (!p->trainable) continue;
    for_grad_rows(*p, [&](auto&& g) { g *= scale; });
  }
  return norm;
}

bool grads_finite(ParamStore& store) {
  for (const auto& p : store.all()) {
    if (!p->trainable) continue;
    bool ok = true;
    for_grad_rows(*p, [&](auto&& g) { ok = ok && g.allFinite(); });
    if (!ok) return false;
  }
  return true;
}

}  // namespace twin
