#include <gtest/gtest.h>

#include "ops/ops.h"

namespace twin {

TEST(Graph, ParamIsMemoisedPerGraph) {
  ParamStore store;
  Param& p = store.add("w", 2, 2, nullptr);
  Graph g;
  EXPECT_EQ(g.param(p).id, g.param(p).id);
  Graph g2;
  EXPECT_EQ(g2.param(p).id, 0);
}

TEST(Graph, InferModeRecordsNoGradient) {
  ParamStore store;
  Param& p = store.add("w", 2, 2, [](Mat& m, Rng&) { m.setOnes(); });
  Graph g(Mode::kInfer);
  Var y = sum_all(p.value.rows() ? g.param(p) * g.param(p) : g.param(p));
  EXPECT_FALSE(g.needs_grad(y.id));
  EXPECT_THROW(g.backward(y), Error);
}
}  // namespace twin
