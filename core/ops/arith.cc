#include "ops/arith.h"

namespace twin {

namespace {
void check_same(const char* op, Var a, Var b) {
  TW_CHECK(a.rows() == b.rows() && a.cols() == b.cols(), op, ": shapes differ ", shape_str(a), " vs ", shape_str(b));
}
}  // namespace

// y = a + b        da += dy, db += dy
Var operator+(Var a, Var b) {
  check_same("add", a, b);
  return a.g->record("add", a.g->take_eval(a.val() + b.val()), {a, b}, [a, b](Graph& g, NodeId self) {
    if (g.needs_grad(a.id)) g.accumulate(a.id, g.grad(self));
    if (g.needs_grad(b.id)) g.accumulate(b.id, g.grad(self));
  });
}

// y = a - b        da += dy, db -= dy
Var operator-(Var a, Var b) {
  check_same("sub", a, b);
  return a.g->record("sub", a.g->take_eval(a.val() - b.val()), {a, b}, [a, b](Graph& g, NodeId self) {
    if (g.needs_grad(a.id)) g.accumulate(a.id, g.grad(self));
    if (g.needs_grad(b.id)) g.accumulate(b.id, -g.grad(self));
  });
}

// y = a ⊙ b        da += dy ⊙ b, db += dy ⊙ a
Var operator*(Var a, Var b) {
  check_same("mul", a, b);
  Mat y = a.g->take_eval((a.val().array() * b.val().array()).matrix());
  return a.g->record("mul", std::move(y), {a, b}, [a, b](Graph& g, NodeId self) {
    const auto dy = g.grad(self).array();
    if (g.needs_grad(a.id)) g.accumulate(a.id, dy * g.value(b.id).array());
    if (g.needs_grad(b.id)) g.accumulate(b.id, dy * g.value(a.id).array());
  });
}

// y = x + 1 b      dx += dy, db += Σ_rows dy
Var add_row(Var x, Var b) {
  TW_CHECK(b.rows() == 1 && b.cols() == x.cols(), "add_row: x ", shape_str(x), " bias ", shape_str(b));
  Mat y = x.g->take_eval(x.val().rowwise() + b.val().row(0));
  return x.g->record("add_row", std::move(y), {x, b}, [x, b](Graph& g, NodeId self) {
    const Mat& dy = g.grad(self);
    if (g.needs_grad(x.id)) g.accumulate(x.id, dy);
    if (g.needs_grad(b.id)) g.grad(b.id) += dy.colwise().sum();
  });
}

// y[n,:] = x[n,:] c[n]      dx += dy ⊙ c, dc[n] += Σ_d dy[n,d] x[n,d]
Var mul_col(Var x, Var c) {
  TW_CHECK(c.cols() == 1 && c.rows() == x.rows(), "mul_col: x ", shape_str(x), " c ", shape_str(c));
  Mat y = x.val().array().colwise() * c.val().col(0).array();
  return x.g->record("mul_col", std::move(y), {x, c}, [x, c](Graph& g, NodeId self) {
    const Mat& dy = g.grad(self);
    if (g.needs_grad(x.id)) g.accumulate(x.id, dy.array().colwise() * g.value(c.id).col(0).array());
    if (g.needs_grad(c.id)) g.grad(c.id) += (dy.array() * g.value(x.id).array()).rowwise().sum().matrix();
  });
}

// y = s x          dx += s dy
Var scale(Var x, Real s) {
  return x.g->record("scale", x.g->take_eval(s * x.val()), {x}, [x, s](Graph& g, NodeId self) {
    g.accumulate(x.id, s * g.grad(self));
  });
}

// y = x + s        dx += dy
Var add_scalar(Var x, Real s) {
  Mat y = x.g->take_eval((x.val().array() + s).matrix());
  return x.g->record("add_scalar", std::move(y), {x}, [x](Graph& g, NodeId self) { g.accumulate(x.id, g.grad(self)); });
}

// y = 1 - x        dx -= dy
Var one_minus(Var x) {
  Mat y = x.g->take_eval((Real(1) - x.val().array()).matrix());
  return x.g->record("one_minus", std::move(y), {x}, [x](Graph& g, NodeId self) { g.accumulate(x.id, -g.grad(self)); });
}

// y = Σ x          dx += dy (broadcast)
Var sum_all(Var x) {
  Mat y(1, 1);
  y(0, 0) = x.val().sum();
  return x.g->record("sum_all", std::move(y), {x}, [x](Graph& g, NodeId self) {
    const Real dy = g.grad(self)(0, 0);
    const Graph::GradOut dx = g.grad_out(x.id);
    if (dx.fresh) dx.m.setConstant(dy);
    else dx.m.array() += dy;
  });
}

// y[s*B+b] = x[s*B+b] + q[b]       dx += dy, dq[b] += Σ_s dy[s*B+b]
Var add_tile_rows(Var x, Var q) {
  const Index B = q.rows();
  TW_CHECK(B > 0 && x.rows() % B == 0 && x.cols() == q.cols(), "add_tile_rows: x ", shape_str(x), " q ", shape_str(q));
  // A pooled buffer, not a fresh copy: a beam-10 decoding step adds the query to [S*R, A] keys (16 MB at the NMT
  // experiment's shape), and a fresh allocation that size is mapped and faulted in at every step.
  Mat y = x.g->take_eval(x.val());
  const Index S = x.rows() / B;
  for (Index s = 0; s < S; ++s) y.middleRows(s * B, B) += q.val();
  return x.g->record("add_tile_rows", std::move(y), {x, q}, [x, q, S, B](Graph& g, NodeId self) {
    const Mat& dy = g.grad(self);
    if (g.needs_grad(x.id)) g.accumulate(x.id, dy);
    if (g.needs_grad(q.id)) {
      Mat& dq = g.grad(q.id);
      for (Index s = 0; s < S; ++s) dq += dy.middleRows(s * B, B);
    }
  });
}

// y[s*B+b] = x[s*B+b] ⊙ m[b]       dx += dy ⊙ m, dm[b] += Σ_s dy ⊙ x
Var mul_tile_rows(Var x, Var m) {
  const Index B = m.rows();
  TW_CHECK(B > 0 && x.rows() % B == 0 && x.cols() == m.cols(), "mul_tile_rows: x ", shape_str(x), " m ", shape_str(m));
  const Index S = x.rows() / B;
  Mat y = x.g->take(x.rows(), x.cols());
  for (Index s = 0; s < S; ++s) y.middleRows(s * B, B) = x.val().middleRows(s * B, B).cwiseProduct(m.val());
  return x.g->record("mul_tile_rows", std::move(y), {x, m}, [x, m, S, B](Graph& g, NodeId self) {
    const Mat& dy = g.grad(self);
    if (g.needs_grad(x.id)) {
      Mat& dx = g.grad(x.id);
      for (Index s = 0; s < S; ++s) dx.middleRows(s * B, B) += dy.middleRows(s * B, B).cwiseProduct(g.value(m.id));
    }
    if (g.needs_grad(m.id)) {
      Mat& dm = g.grad(m.id);
      for (Index s = 0; s < S; ++s)
        dm += dy.middleRows(s * B, B).cwiseProduct(g.value(x.id).middleRows(s * B, B));
    }
  });
}

}  // namespace twin
