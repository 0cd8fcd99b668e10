#include "ops/embed.h"

namespace twin {

// y[n] = E[ids[n]]         dE[ids[n]] += dy[n]
Var lookup(Var table, const Ids& ids) {
  const Mat& e = table.val();
  Mat y = table.g->take(static_cast<Index>(ids.size()), e.cols());
  for (size_t n = 0; n < ids.size(); ++n) {
    TW_CHECK(ids[n] >= 0 && ids[n] < e.rows(), "lookup: id ", ids[n], " outside the table ", shape_str(e),
             " (position ", n, ")");
    y.row(static_cast<Index>(n)) = e.row(ids[n]);
  }
  return table.g->record("lookup", std::move(y), {table}, [table, ids](Graph& g, NodeId self) {
    const Mat& dy = g.grad(self);
    if (Param* p = g.param_of(table.id)) {
      // Write through the parameter directly: Graph::grad() on a param would mark every row touched.
      for (size_t n = 0; n < ids.size(); ++n) {
        p->grad.row(ids[n]) += dy.row(static_cast<Index>(n));
        p->mark_row(ids[n]);
      }
    } else {
      Mat& de = g.grad(table.id);
      for (size_t n = 0; n < ids.size(); ++n) de.row(ids[n]) += dy.row(static_cast<Index>(n));
    }
  });
}

}  // namespace twin
