#include "ops/linalg.h"

namespace twin {

void weight_grad(Graph& g, NodeId w, const Mat& x, const Mat& dy) {
  if (g.param_of(w) && x.rows() < kDeferMaxRows) g.defer_weight_grad(w, &x, &dy);
  else {
    const Graph::GradOut dw = g.grad_out(w);
    gemm(x, true, dy, false, dw.m, 1, dw.beta());
  }
}

// The dx and dW products write a gradient nobody has touched yet with beta 0 (Graph::grad_out): no zero fill first.
// y = x W          dx += dy W^T, dW += x^T dy
// A thin dx product with a parameter W is a recurrent step's (dh_{t-1} = dG_t U^T, once per step): it goes
// through the graph's ReusedOperand for W^T, which packs U once per tape for the steps after the first
// (base/gemm.h, gemm_reused). The forward x W stays a plain gemm(): packing it measured no faster for every
// cell (ATR's 20x650x650 on two threads: 269-297 GFLOP/s packed against 310-322 in dnnl_sgemm).
Var matmul(Var x, Var w) {
  TW_CHECK(x.cols() == w.rows(), "matmul: ", shape_str(x), " x ", shape_str(w));
  Mat y = x.g->take(x.rows(), w.cols());
  gemm(x.val(), false, w.val(), false, y);
  return x.g->record("matmul", std::move(y), {x, w}, [x, w](Graph& g, NodeId self) {
    const Mat& dy = g.grad(self);
    if (g.needs_grad(x.id)) {
      ReusedOperand* wt = dy.rows() < kDeferMaxRows ? g.reused_param(w.id, true) : nullptr;
      const Graph::GradOut dx = g.grad_out(x.id);
      if (wt) gemm_reused(dy, *wt, dx.m, 1, dx.beta());
      else gemm(dy, false, g.value(w.id), true, dx.m, 1, dx.beta());
    }
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
    if (g.needs_grad(x.id)) {
      const Graph::GradOut dx = g.grad_out(x.id);
      gemm(dy, false, g.value(w.id), false, dx.m, 1, dx.beta());
    }
    if (g.needs_grad(w.id)) {
      const Graph::GradOut dw = g.grad_out(w.id);
      gemm(dy, true, g.value(x.id), false, dw.m, 1, dw.beta());
    }
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
    if (g.needs_grad(x.id)) {
      const Graph::GradOut dx = g.grad_out(x.id);
      gemm(dy, false, g.value(w.id), true, dx.m, 1, dx.beta());
    }
    if (g.needs_grad(w.id)) weight_grad(g, w.id, g.value(x.id), dy);
    if (g.needs_grad(b.id)) g.grad(b.id) += dy.colwise().sum();
  });
}

}  // namespace twin
