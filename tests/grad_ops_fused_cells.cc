// The fused cell kernels (ops/fused_cells.h): finite-difference gradient checks, and equality of values and
// gradients with the compositions they replace (fused_compare.h), in double so "equal" means 1e-12.
#include <gtest/gtest.h>

#include "fused_compare.h"
#include "gradcheck.h"
#include "ops/ops.h"

namespace twin::test {

namespace {
constexpr Index kB = 3, kH = 4;
}  // namespace

TEST(OpGrad, LstmCell) {
  check_op({{kB, 4 * kH}, {kB, 4 * kH}, {kB, kH}}, [](Var a, Var q, Var c) { return lstm_cell(a, q, c); });
}

TEST(OpGrad, GruCell) {
  check_op({{kB, 3 * kH}, {kB, 3 * kH}, {kB, kH}}, [](Var a, Var q, Var h) { return gru_cell(a, q, h); });
}

TEST(OpGrad, GruResetHidden) {
  check_op({{kB, 3 * kH}, {kB, 2 * kH}, {kB, kH}}, [](Var a, Var s, Var h) { return gru_reset_hidden(a, s, h); });
}

TEST(OpGrad, GruRbUpdate) {
  check_op({{kB, 3 * kH}, {kB, 2 * kH}, {kB, kH}, {kB, kH}},
           [](Var a, Var s, Var sh, Var h) { return gru_rb_update(a, s, sh, h); });
}

// Both kernels feed the same a and s: the gradients they add into each other's columns must combine.
TEST(OpGrad, GruResetBeforeStep) {
  check_op({{kB, 3 * kH}, {kB, 2 * kH}, {kH, kH}, {kB, kH}},
           [](Var a, Var s, Var u, Var h) { return gru_rb_fused(a, s, u, h); });
}

TEST(OpGrad, LgruCell) {
  check_op({{kB, 5 * kH}, {kB, 4 * kH}, {kB, kH}}, [](Var a, Var s, Var h) { return lgru_cell(a, s, h); });
}

TEST(OpGrad, TgruCell) {
  check_op({{kB, 3 * kH}, {kB, kH}}, [](Var s, Var h) { return tgru_cell(s, h); });
}

TEST(OpGrad, LrnCell) {
  for (bool t : {false, true}) {
    GradCheck gc;
    auto qkv = gc.input(kB, 3 * kH), h = gc.input(kB, kH);
    gc.check([&](Graph& g) { return lrn_cell(qkv.in(g), h.in(g), t); });
  }
}

TEST(OpGrad, RanCell) {
  for (bool t : {false, true}) {
    GradCheck gc;
    auto a = gc.input(kB, 3 * kH), q = gc.input(kB, 2 * kH), c = gc.input(kB, kH);
    gc.check([&](Graph& g) { return ran_cell(a.in(g), q.in(g), c.in(g), t); });
  }
}

TEST(OpGrad, SruCell) {
  for (bool t : {false, true}) {
    GradCheck gc;
    auto a = gc.input(kB, 4 * kH), c = gc.input(kB, kH);
    gc.check([&](Graph& g) { return sru_cell(a.in(g), c.in(g), t); });
  }
}

TEST(OpFused, LstmCellEqualsComposed) {
  ParamStore store;
  Param& a = rand_param(store, "a", kB, 4 * kH);
  Param& q = rand_param(store, "q", kB, 4 * kH);
  Param& c = rand_param(store, "c", kB, kH);
  auto fused = evaluate(store, [&](Graph& g) { return lstm_cell(g.param(a), g.param(q), g.param(c)); });
  auto comp = evaluate(store, [&](Graph& g) { return composed::lstm(g.param(a), g.param(q), g.param(c)); });
  expect_same(fused, comp, store, 1e-12);
}

TEST(OpFused, GruCellEqualsComposed) {
  ParamStore store;
  Param& a = rand_param(store, "a", kB, 3 * kH);
  Param& q = rand_param(store, "q", kB, 3 * kH);
  Param& h = rand_param(store, "h", kB, kH);
  auto fused = evaluate(store, [&](Graph& g) { return gru_cell(g.param(a), g.param(q), g.param(h)); });
  auto comp = evaluate(store, [&](Graph& g) { return composed::gru(g.param(a), g.param(q), g.param(h)); });
  expect_same(fused, comp, store, 1e-12);
}

TEST(OpFused, GruResetBeforeEqualsComposed) {
  ParamStore store;
  Param& a = rand_param(store, "a", kB, 3 * kH);
  Param& s = rand_param(store, "s", kB, 2 * kH);
  Param& u = rand_param(store, "U_h", kH, kH);
  Param& h = rand_param(store, "h", kB, kH);
  auto fused = evaluate(store, [&](Graph& g) { return gru_rb_fused(g.param(a), g.param(s), g.param(u), g.param(h)); });
  auto comp = evaluate(store, [&](Graph& g) { return composed::gru_rb(g.param(a), g.param(s), g.param(u), g.param(h)); });
  expect_same(fused, comp, store, 1e-12);
}

TEST(OpFused, GruResetBeforeOverThreeStepsEqualsComposed) {
  ParamStore store;
  Param& x = rand_param(store, "x", 3 * kB, 3 * kH);
  Param& u = rand_param(store, "U", kH, 2 * kH);
  Param& uh = rand_param(store, "U_h", kH, kH);
  auto run = [&](bool fused) {
    return evaluate(store, [&, fused](Graph& g) {
      Var h = g.constant(Mat::Zero(kB, kH));
      for (Index t = 0; t < 3; ++t) {
        Var a = slice_rows(g.param(x), t * kB, kB), s = matmul(h, g.param(u));
        h = fused ? gru_rb_fused(a, s, g.param(uh), h) : composed::gru_rb(a, s, g.param(uh), h);
      }
      return h;
    });
  };
  expect_same(run(true), run(false), store, 1e-12);
}

TEST(OpFused, LgruCellEqualsComposed) {
  ParamStore store;
  Param& a = rand_param(store, "a", kB, 5 * kH);
  Param& s = rand_param(store, "s", kB, 4 * kH);
  Param& h = rand_param(store, "h", kB, kH);
  auto fused = evaluate(store, [&](Graph& g) { return lgru_cell(g.param(a), g.param(s), g.param(h)); });
  auto comp = evaluate(store, [&](Graph& g) { return composed::lgru(g.param(a), g.param(s), g.param(h)); });
  expect_same(fused, comp, store, 1e-12);
}

TEST(OpFused, TgruCellEqualsComposed) {
  ParamStore store;
  Param& s = rand_param(store, "s", kB, 3 * kH);
  Param& h = rand_param(store, "h", kB, kH);
  auto fused = evaluate(store, [&](Graph& g) { return tgru_cell(g.param(s), g.param(h)); });
  auto comp = evaluate(store, [&](Graph& g) { return composed::tgru(g.param(s), g.param(h)); });
  expect_same(fused, comp, store, 1e-12);
}

TEST(OpFused, LrnCellEqualsComposed) {
  for (bool t : {false, true}) {
    ParamStore store;
    Param& qkv = rand_param(store, "qkv", kB, 3 * kH);
    Param& h = rand_param(store, "h", kB, kH);
    auto fused = evaluate(store, [&](Graph& g) { return lrn_cell(g.param(qkv), g.param(h), t); });
    auto comp = evaluate(store, [&](Graph& g) { return composed::lrn(g.param(qkv), g.param(h), t); });
    expect_same(fused, comp, store, 1e-12);
  }
}

TEST(OpFused, RanCellEqualsComposed) {
  for (bool t : {false, true}) {
    ParamStore store;
    Param& a = rand_param(store, "a", kB, 3 * kH);
    Param& q = rand_param(store, "q", kB, 2 * kH);
    Param& c = rand_param(store, "c", kB, kH);
    auto fused = evaluate(store, [&](Graph& g) { return ran_cell(g.param(a), g.param(q), g.param(c), t); });
    auto comp = evaluate(store, [&](Graph& g) { return composed::ran(g.param(a), g.param(q), g.param(c), t); });
    expect_same(fused, comp, store, 1e-12);
  }
}

TEST(OpFused, SruCellEqualsComposed) {
  for (bool t : {false, true}) {
    ParamStore store;
    Param& a = rand_param(store, "a", kB, 4 * kH);
    Param& c = rand_param(store, "c", kB, kH);
    auto fused = evaluate(store, [&](Graph& g) { return sru_cell(g.param(a), g.param(c), t); });
    auto comp = evaluate(store, [&](Graph& g) { return composed::sru(g.param(a), g.param(c), t); });
    expect_same(fused, comp, store, 1e-12);
  }
}

// The kernels inside a recurrence: gradients flow through the carried state over several steps (the fused
// node's own h/c gradient paths, which a single-step check only sees through R).
TEST(OpFused, LstmCellOverThreeStepsEqualsComposed) {
  ParamStore store;
  Param& x = rand_param(store, "x", 3 * kB, 4 * kH);
  Param& u = rand_param(store, "U", kH, 4 * kH);
  auto run = [&](bool fused) {
    return evaluate(store, [&, fused](Graph& g) {
      Var h = g.constant(Mat::Zero(kB, kH)), c = g.constant(Mat::Zero(kB, kH));
      for (Index t = 0; t < 3; ++t) {
        Var a = slice_rows(g.param(x), t * kB, kB), q = matmul(h, g.param(u));
        Var hc = fused ? lstm_cell(a, q, c) : composed::lstm(a, q, c);
        h = slice_cols(hc, 0, kH);
        c = slice_cols(hc, kH, kH);
      }
      return concat_cols({h, c});
    });
  };
  expect_same(run(true), run(false), store, 1e-12);
}

// A deep-transition recurrence (DTMT): an L-GRU step then two T-GRU transitions, over three steps, so the
// gradient reaches each kernel both through its own output and through the state it hands on.
TEST(OpFused, DeepTransitionOverThreeStepsEqualsComposed) {
  ParamStore store;
  Param& x = rand_param(store, "x", 3 * kB, 5 * kH);
  Param& u = rand_param(store, "U", kH, 4 * kH);
  Param& u1 = rand_param(store, "U1", kH, 3 * kH);
  Param& u2 = rand_param(store, "U2", kH, 3 * kH);
  auto run = [&](bool fused) {
    return evaluate(store, [&, fused](Graph& g) {
      Var h = g.constant(Mat::Zero(kB, kH));
      for (Index t = 0; t < 3; ++t) {
        Var a = slice_rows(g.param(x), t * kB, kB), s = matmul(h, g.param(u));
        h = fused ? lgru_cell(a, s, h) : composed::lgru(a, s, h);
        for (Param* w : {&u1, &u2}) {
          Var q = matmul(h, g.param(*w));
          h = fused ? tgru_cell(q, h) : composed::tgru(q, h);
        }
      }
      return h;
    });
  };
  expect_same(run(true), run(false), store, 1e-12);
}

}  // namespace twin::test
