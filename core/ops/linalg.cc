#include "ops/linalg.h"

namespace twin {

void weight_grad(Graph& g, NodeId w, const Mat& x, const Mat& dy) {
  if (g.param_of(w) && x.rows() < kDeferMaxRows) g.defer_weight_grad(w, &x, &dy);
  else gemm(x, true, dy, false, g.grad(w), 1, 1);
}

// y = x W          dx += dy W^T, dW += x^T dy
Var matmul(Var x, Var w) {
  TW_CHECK(x.cols() == w.rows(), "matmul: ", shape_str(x), " x ", shape_str(w));
  Mat y = x.g->take(x.rows(), w.cols());
  gemm(x.val(), false, w.val(), false, y);
  return x.g->record("matmul", std::move(y), {x, w}, [x, w](Graph& g, NodeId self) {
    const Mat& dy = g.grad(self);
    if (g.needs_grad(x.id)) gemm(dy, false, g.value(w.id), true, g.grad(x.id), 1, 1);
    if (g.needs_grad(w.id)) weight_grad(g, w.id, g.value(x.id), dy);
  });
}

// y = x W^T        dx += dy W, dW += dy^T x
Var matmul_nt(Var x, Var w) {
  TW_CHECK(x.cols() == w.cols(), "matmul_nt: ", shape_str(x), " x ", shape_str(w), "^T");
  Mat y = x.g->take(x.rows(), w.rows());
  gemm(x.val(), false, w.val(), true, y);
  return x.g->record("matmul_nt", std::move(y), {x, w}, [x, w](Graph& g, NodeId self) {
    const Mat& dy = g.grad(self);
    if (g.needs_grad(x.id)) gemm(dy, false, g.value(w.id), false, g.grad(x.id), 1, 1);
    if (g.needs_grad(w.id)) gemm(dy, true, g.value(x.id), false, g.grad(w.id), 1, 1);
  });
}

// y = x W + 1 b    dx += dy W^T, dW += x^T dy, db += Σ_rows dy   (one node: no [N,O] temporary for xW)
Var affine(Var x, Var w, Var b) {
  TW_CHECK(x.cols() == w.rows(), "affine: ", shape_str(x), " x ", shape_str(w));
  TW_CHECK(b.rows() == 1 && b.cols() == w.cols(), "affine: bias ", shape_str(b), " for output width ", w.cols());
  Mat y = x.g->take(x.rows(), w.cols());
  y.rowwise() = b.val().row(0);
  gemm(x.val(), false, w.val(), false, y, 1, 1);
  return x.g->record("affine", std::move(y), {x, w, b}, [x, w, b](Graph& g, NodeId self) {
    const Mat& dy = g.grad(self);
    if (g.needs_grad(x.id)) gemm(dy, false, g.value(w.id), true, g.grad(x.id), 1, 1);
    if (g.needs_grad(w.id)) weight_grad(g, w.id, g.value(x.id), dy);
    if (g.needs_grad(b.id)) g.grad(b.id) += dy.colwise().sum();
  });
}

}  // namespace twin
