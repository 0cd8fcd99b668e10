// Gradient checks for arithmetic and linear-algebra ops.
#include <gtest/gtest.h>

#include "gradcheck.h"
#include "ops/ops.h"

namespace twin::test {

TEST(OpGrad, Add) {
  GradCheck gc;
  auto a = gc.input(3, 4), b = gc.input(3, 4);
  gc.check([&](Graph& g) { return a.in(g) + b.in(g); });
}

TEST(OpGrad, Matmul) {
  GradCheck gc;
  auto x = gc.input(3, 4), w = gc.input(4, 2);
  gc.check([&](Graph& g) { return matmul(x.in(g), w.in(g)); });
}

}  // namespace twin::test
