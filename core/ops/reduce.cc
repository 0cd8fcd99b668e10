#include "ops/reduce.h"

#include <limits>

namespace twin {

// y = 1^T x                      dx += 1 dy
Var sum_rows(Var x) {
  return x.g->record("sum_rows", x.val().colwise().sum(), {x}, [x](Graph& g, NodeId self) {
    const Mat& dy = g.grad(self);
    const Graph::GradOut dx = g.grad_out(x.id);
    if (dx.fresh) dx.m.rowwise() = dy.row(0);
    else dx.m.rowwise() += dy.row(0);
  });
}

// y = x 1                        dx += dy 1^T
Var sum_cols(Var x) {
  return x.g->record("sum_cols", x.val().rowwise().sum(), {x}, [x](Graph& g, NodeId self) {
    const Mat& dy = g.grad(self);
    const Graph::GradOut dx = g.grad_out(x.id);
    if (dx.fresh) dx.m.colwise() = dy.col(0);
    else dx.m.colwise() += dy.col(0);
  });
}

namespace {
void check_seq(const char* op, Var x, const Mat& mask, Index batch) {
  TW_CHECK(batch > 0 && x.rows() % batch == 0, op, ": ", shape_str(x), " is not [T*B, D] with B=", batch);
  TW_CHECK(mask.rows() == x.rows() && mask.cols() == 1, op, ": mask ", shape_str(mask), " for ", shape_str(x));
}
}  // namespace

// y[b] = Σ_t m[t,b] x[t,b] / Σ_t m[t,b]     dx[t,b] += m[t,b] dy[b] / n[b]
Var mean_rows_masked(Var x, const Mat& mask, Index batch) {
  check_seq("mean_rows_masked", x, mask, batch);
  const Index T = x.rows() / batch;
  Mat y = Mat::Zero(batch, x.cols());
  Mat inv_n = Mat::Zero(batch, 1);
  for (Index t = 0; t < T; ++t)
    for (Index b = 0; b < batch; ++b) {
      const Real m = mask(t * batch + b, 0);
      if (m != 0) {
        y.row(b) += m * x.val().row(t * batch + b);
        inv_n(b, 0) += m;
      }
    }
  for (Index b = 0; b < batch; ++b) {
    inv_n(b, 0) = inv_n(b, 0) > 0 ? Real(1) / inv_n(b, 0) : Real(0);  // an empty sequence averages to 0
    y.row(b) *= inv_n(b, 0);
  }
  return x.g->record("mean_rows_masked", std::move(y), {x}, [x, mask, inv_n, batch, T](Graph& g, NodeId self) {
    Mat& dx = g.grad(x.id);
    const Mat& dy = g.grad(self);
    for (Index t = 0; t < T; ++t)
      for (Index b = 0; b < batch; ++b) {
        const Real m = mask(t * batch + b, 0);
        if (m != 0) dx.row(t * batch + b) += (m * inv_n(b, 0)) * dy.row(b);
      }
  });
}

// y[b,d] = max_{t: m[t,b]=1} x[t,b,d]      dx[argmax] += dy
Var max_over_time(Var x, const Mat& mask, Index batch) {
  check_seq("max_over_time", x, mask, batch);
  const Index T = x.rows() / batch, D = x.cols();
  Mat y = Mat::Zero(batch, D);
  IdMat arg = IdMat::Constant(batch, D, -1);
  for (Index t = 0; t < T; ++t)
    for (Index b = 0; b < batch; ++b) {
      if (mask(t * batch + b, 0) == 0) continue;
      for (Index d = 0; d < D; ++d) {
        const Real v = x.val()(t * batch + b, d);
        if (arg(b, d) < 0 || v > y(b, d)) {
          y(b, d) = v;
          arg(b, d) = static_cast<std::int32_t>(t * batch + b);
        }
      }
    }
  return x.g->record("max_over_time", std::move(y), {x}, [x, arg](Graph& g, NodeId self) {
    Mat& dx = g.grad(x.id);
    const Mat& dy = g.grad(self);
    for (Index b = 0; b < arg.rows(); ++b)
      for (Index d = 0; d < arg.cols(); ++d)
        if (arg(b, d) >= 0) dx(arg(b, d), d) += dy(b, d);
  });
}

}  // namespace twin
