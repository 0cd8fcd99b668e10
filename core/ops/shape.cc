#include "ops/shape.h"

namespace twin {

namespace {
// dx[rows or columns start .. start+n) += dy. At the gradient's first touch the slice is assigned and only the
// rest of dx zeroed (Graph::grad_out), not all of it zeroed and the slice then added.
void slice_backward(Graph& g, NodeId x, NodeId self, Index start, Index n, bool cols) {
  const Mat& dy = g.grad(self);
  const Graph::GradOut dx = g.grad_out(x);
  auto write = [&](auto part, auto before, auto after) {   // Eigen blocks: views into dx
    if (!dx.fresh) {
      part += dy;
      return;
    }
    before.setZero();
    part = dy;
    after.setZero();
  };
  if (cols) write(dx.m.middleCols(start, n), dx.m.leftCols(start), dx.m.rightCols(dx.m.cols() - start - n));
  else write(dx.m.middleRows(start, n), dx.m.topRows(start), dx.m.bottomRows(dx.m.rows() - start - n));
}
}  // namespace

// y = x[start : start+n, :]       dx[start : start+n, :] += dy
Var slice_rows(Var x, Index start, Index n) {
  TW_CHECK(start >= 0 && n >= 0 && start + n <= x.rows(), "slice_rows: rows [", start, ", ", start + n, ") of ",
           shape_str(x));
  return x.g->record("slice_rows", x.g->take_eval(x.val().middleRows(start, n)), {x}, [x, start, n](Graph& g, NodeId self) {
    slice_backward(g, x.id, self, start, n, false);
  });
}

// y = x[:, start : start+n]       dx[:, start : start+n] += dy
Var slice_cols(Var x, Index start, Index n) {
  TW_CHECK(start >= 0 && n >= 0 && start + n <= x.cols(), "slice_cols: columns [", start, ", ", start + n, ") of ",
           shape_str(x));
  return x.g->record("slice_cols", x.g->take_eval(x.val().middleCols(start, n)), {x}, [x, start, n](Graph& g, NodeId self) {
    slice_backward(g, x.id, self, start, n, true);
  });
}

// y = [x1 x2 ...]                 dxi += dy[:, block i]
Var concat_cols(const std::vector<Var>& xs) {
  TW_CHECK(!xs.empty(), "concat_cols: no inputs");
  const Index n = xs[0].rows();
  Index d = 0;
  for (const Var& x : xs) {
    TW_CHECK(x.rows() == n, "concat_cols: row counts differ ", shape_str(xs[0]), " vs ", shape_str(x));
    d += x.cols();
  }
  Mat y = xs[0].g->take(n, d);
  Index off = 0;
  for (const Var& x : xs) {
    y.middleCols(off, x.cols()) = x.val();
    off += x.cols();
  }
  return xs[0].g->record("concat_cols", std::move(y), xs, [xs](Graph& g, NodeId self) {
    Index off = 0;
    for (const Var& x : xs) {
      const Index c = g.value(x.id).cols();
      if (g.needs_grad(x.id)) g.accumulate(x.id, g.grad(self).middleCols(off, c));
      off += c;
    }
  });
}

// y = [x1; x2; ...]               dxi += dy[block i, :]
Var stack_rows(const std::vector<Var>& xs) {
  TW_CHECK(!xs.empty(), "stack_rows: no inputs");
  const Index d = xs[0].cols();
  Index n = 0;
  for (const Var& x : xs) {
    TW_CHECK(x.cols() == d, "stack_rows: column counts differ ", shape_str(xs[0]), " vs ", shape_str(x));
    n += x.rows();
  }
  Mat y = xs[0].g->take(n, d);
  Index off = 0;
  for (const Var& x : xs) {
    y.middleRows(off, x.rows()) = x.val();
    off += x.rows();
  }
  return xs[0].g->record("stack_rows", std::move(y), xs, [xs](Graph& g, NodeId self) {
    Index off = 0;
    for (const Var& x : xs) {
      const Index r = g.value(x.id).rows();
      if (g.needs_grad(x.id)) g.accumulate(x.id, g.grad(self).middleRows(off, r));
      off += r;
    }
  });
}

// y[i] = x[rows[i]]               dx[rows[i]] += dy[i]
Var select_rows(Var x, const Ids& rows) {
  Mat y(static_cast<Index>(rows.size()), x.cols());
  for (size_t i = 0; i < rows.size(); ++i) {
    TW_CHECK(rows[i] >= 0 && rows[i] < x.rows(), "select_rows: row ", rows[i], " of ", shape_str(x));
    y.row(static_cast<Index>(i)) = x.val().row(rows[i]);
  }
  return x.g->record("select_rows", std::move(y), {x}, [x, rows](Graph& g, NodeId self) {
    Mat& dx = g.grad(x.id);
    const Mat& dy = g.grad(self);
    for (size_t i = 0; i < rows.size(); ++i) dx.row(rows[i]) += dy.row(static_cast<Index>(i));
  });
}

// Row-major reinterpretation: element order is unchanged.
Var reshape(Var x, Index rows, Index cols) {
  TW_CHECK(rows * cols == x.val().size(), "reshape: ", shape_str(x), " to [", rows, "x", cols, "]");
  Mat y = Eigen::Map<const Mat>(x.val().data(), rows, cols);
  return x.g->record("reshape", std::move(y), {x}, [x](Graph& g, NodeId self) {
    const Mat& dy = g.grad(self);
    const Graph::GradOut dx = g.grad_out(x.id);
    Eigen::Map<Mat> dx_as_y(dx.m.data(), dy.rows(), dy.cols());
    if (dx.fresh) dx_as_y = dy;
    else dx_as_y += dy;
  });
}

// y = x^T                         dx += dy^T
Var transpose(Var x) {
  return x.g->record("transpose", x.val().transpose(), {x}, [x](Graph& g, NodeId self) {
    g.accumulate(x.id, g.grad(self).transpose());
  });
}

}  // namespace twin
