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

// borrow(): a constant that reads the caller's matrix in place (no copy), takes no gradient, and leaves the
// matrix to its owner when the graph is cleared; in training mode the ops above it still differentiate.
TEST(Graph, BorrowedConstantReadsTheCallersMatrixInPlace) {
  Mat m(2, 3);
  m << 1, 2, 3, 4, 5, 6;
  ParamStore store;
  Param& p = store.add("w", 3, 1, [](Mat& w, Rng&) { w.setOnes(); });
  Graph g;
  Var b = g.borrow(m);
  EXPECT_EQ(&g.value(b.id), &m);
  EXPECT_FALSE(g.needs_grad(b.id));
  EXPECT_STREQ(g.op(b.id), "constant");
  Var y = sum_all(matmul(b, g.param(p)));   // 21
  EXPECT_FLOAT_EQ(y.val()(0, 0), 21);
  g.backward(y);
  EXPECT_FLOAT_EQ(p.grad(0, 0), 5);          // column sums of m: 5 7 9
  EXPECT_FLOAT_EQ(p.grad(2, 0), 9);
  g.clear();
  EXPECT_EQ(m(1, 2), 6);                     // still the caller's, unchanged
  m(1, 2) = 7;
  Var b2 = g.borrow(m);
  EXPECT_EQ(g.value(b2.id)(1, 2), 7);        // read when used, not copied when borrowed
}
}  // namespace twin
