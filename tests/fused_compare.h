// Shared by the fused-kernel tests in double (grad_*.cc) and float (test_*.cc): run a function of some
// parameters, backpropagate Σ R ⊙ y with a fixed random R, and compare the value and every gradient of the
// fused kernel with those of the composition it replaces. Also the compositions themselves, written as
// the cells computed them before the kernels existed.
#pragma once
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "graph/param.h"
#include "ops/ops.h"

namespace twin::test {

struct Evaluated {
  Mat value;
  std::vector<Mat> grads;   // one per parameter, in store order
};

inline Evaluated evaluate(ParamStore& store, const std::function<Var(Graph&)>& f) {
  store.zero_grad();
  Graph g;
  Var y = f(g);
  Mat r(y.rows(), y.cols());
  Rng rng(99);
  rng.fill_normal(r, 0, 1);
  g.backward(sum_all(y * g.constant(r)));
  Evaluated out{y.val(), {}};
  for (const auto& p : store.all()) out.grads.push_back(p->grad);
  return out;
}

// Every entry within tol (absolute); every gradient nonzero somewhere (a kernel that drops a path fails).
inline void expect_same(const Evaluated& fused, const Evaluated& composed, const ParamStore& store, double tol) {
  ASSERT_EQ(fused.value.rows(), composed.value.rows());
  ASSERT_EQ(fused.value.cols(), composed.value.cols());
  EXPECT_LE((fused.value - composed.value).cwiseAbs().maxCoeff(), tol) << "forward values differ";
  for (size_t i = 0; i < fused.grads.size(); ++i) {
    const Mat& a = fused.grads[i];
    const Mat& b = composed.grads[i];
    EXPECT_LE((a - b).cwiseAbs().maxCoeff(), tol) << "gradient of " << store.all()[i]->name << " differs";
    EXPECT_GT(a.cwiseAbs().maxCoeff(), 0) << "gradient of " << store.all()[i]->name << " is all zero";
  }
}

inline Param& rand_param(ParamStore& store, const std::string& name, Index rows, Index cols) {
  return store.add(name, rows, cols, [](Mat& m, Rng& r) { r.fill_normal(m, 0, 1); });
}

namespace composed {
inline Var g_out(Var x, bool tanh_out) { return tanh_out ? tanh(x) : x; }

inline Var lstm(Var a, Var q, Var c_prev) {
  const Index h = c_prev.cols();
  Var s = a + q;
  Var ifo = sigmoid(slice_cols(s, 0, 3 * h));
  Var i = slice_cols(ifo, 0, h), f = slice_cols(ifo, h, h), o = slice_cols(ifo, 2 * h, h);
  Var c = f * c_prev + i * tanh(slice_cols(s, 3 * h, h));
  return concat_cols({o * tanh(c), c});
}
inline Var gru(Var a, Var q, Var h_prev) {
  const Index h = h_prev.cols();
  Var zr = sigmoid(slice_cols(a, 0, 2 * h) + slice_cols(q, 0, 2 * h));
  Var z = slice_cols(zr, 0, h), r = slice_cols(zr, h, h);
  Var h_tilde = tanh(slice_cols(a, 2 * h, h) + r * slice_cols(q, 2 * h, h));
  return h_prev + z * (h_tilde - h_prev);
}
// GRU, reset before U (s = h_prev [U_z U_r], u_h = U_h), as GruCell::step composed it.
inline Var gru_rb(Var a, Var s, Var u_h, Var h_prev) {
  const Index h = h_prev.cols();
  Var zr = sigmoid(slice_cols(a, 0, 2 * h) + slice_cols(s, 0, 2 * h));
  Var z = slice_cols(zr, 0, h), r = slice_cols(zr, h, h);
  Var h_tilde = tanh(slice_cols(a, 2 * h, h) + matmul(r * h_prev, u_h));
  return h_prev + z * (h_tilde - h_prev);
}
inline Var lgru(Var a, Var s, Var h_prev) {
  const Index h = h_prev.cols();
  Var zrl = sigmoid(slice_cols(a, 0, 3 * h) + slice_cols(s, 0, 3 * h));
  Var z = slice_cols(zrl, 0, h), r = slice_cols(zrl, h, h), l = slice_cols(zrl, 2 * h, h);
  Var h_tilde = tanh(slice_cols(a, 3 * h, h) + r * slice_cols(s, 3 * h, h)) + l * slice_cols(a, 4 * h, h);
  return h_prev + z * (h_tilde - h_prev);
}
inline Var tgru(Var s, Var h_prev) {
  const Index h = h_prev.cols();
  Var zr = sigmoid(slice_cols(s, 0, 2 * h));
  Var z = slice_cols(zr, 0, h), r = slice_cols(zr, h, h);
  Var h_tilde = tanh(r * slice_cols(s, 2 * h, h));
  return h_prev + z * (h_tilde - h_prev);
}
inline Var lrn(Var qkv, Var h_prev, bool tanh_out) {
  const Index h = h_prev.cols();
  Var i = sigmoid(slice_cols(qkv, h, h) + h_prev);
  Var f = sigmoid(slice_cols(qkv, 0, h) - h_prev);
  return g_out(i * slice_cols(qkv, 2 * h, h) + f * h_prev, tanh_out);
}
inline Var ran(Var a, Var q, Var c_prev, bool tanh_out) {
  const Index h = c_prev.cols();
  Var gates = sigmoid(slice_cols(a, 0, 2 * h) + q);
  Var c = slice_cols(gates, 0, h) * slice_cols(a, 2 * h, h) + slice_cols(gates, h, h) * c_prev;
  return concat_cols({g_out(c, tanh_out), c});
}
inline Var sru(Var a, Var c_prev, bool tanh_out) {
  const Index h = c_prev.cols();
  Var fr = sigmoid(slice_cols(a, 0, 2 * h));
  Var f = slice_cols(fr, 0, h), r = slice_cols(fr, h, h);
  Var x_tilde = slice_cols(a, 2 * h, h), x_h = slice_cols(a, 3 * h, h);
  Var c = x_tilde + f * (c_prev - x_tilde);
  return concat_cols({x_h + r * (g_out(c, tanh_out) - x_h), c});
}
}  // namespace composed

// The reset-before GRU step from its two kernels, as GruCell::step runs it.
inline Var gru_rb_fused(Var a, Var s, Var u_h, Var h_prev) {
  return gru_rb_update(a, s, matmul(gru_reset_hidden(a, s, h_prev), u_h), h_prev);
}

}  // namespace twin::test
