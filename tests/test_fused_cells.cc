// The fused cell kernels equal their compositions in float too (values and gradients), on shapes wide
// enough for Eigen's vectorised paths (H = 13: a packet body and a scalar tail per row).
#include <gtest/gtest.h>

#include "fused_compare.h"

namespace twin::test {
namespace {

constexpr Index kB = 5, kH = 13;
constexpr double kTol = 2e-5;

TEST(OpFusedFloat, LstmCellEqualsComposed) {
  ParamStore store(3);
  Param& a = rand_param(store, "a", kB, 4 * kH);
  Param& q = rand_param(store, "q", kB, 4 * kH);
  Param& c = rand_param(store, "c", kB, kH);
  expect_same(evaluate(store, [&](Graph& g) { return lstm_cell(g.param(a), g.param(q), g.param(c)); }),
              evaluate(store, [&](Graph& g) { return composed::lstm(g.param(a), g.param(q), g.param(c)); }), store,
              kTol);
}

TEST(OpFusedFloat, GruCellEqualsComposed) {
  ParamStore store(3);
  Param& a = rand_param(store, "a", kB, 3 * kH);
  Param& q = rand_param(store, "q", kB, 3 * kH);
  Param& h = rand_param(store, "h", kB, kH);
  expect_same(evaluate(store, [&](Graph& g) { return gru_cell(g.param(a), g.param(q), g.param(h)); }),
              evaluate(store, [&](Graph& g) { return composed::gru(g.param(a), g.param(q), g.param(h)); }), store,
              kTol);
}

TEST(OpFusedFloat, GruResetBeforeEqualsComposed) {
  ParamStore store(3);
  Param& a = rand_param(store, "a", kB, 3 * kH);
  Param& s = rand_param(store, "s", kB, 2 * kH);
  Param& u = rand_param(store, "U_h", kH, kH);
  Param& h = rand_param(store, "h", kB, kH);
  expect_same(
      evaluate(store, [&](Graph& g) { return gru_rb_fused(g.param(a), g.param(s), g.param(u), g.param(h)); }),
      evaluate(store, [&](Graph& g) { return composed::gru_rb(g.param(a), g.param(s), g.param(u), g.param(h)); }),
      store, kTol);
}

TEST(OpFusedFloat, LgruCellEqualsComposed) {
  ParamStore store(3);
  Param& a = rand_param(store, "a", kB, 5 * kH);
  Param& s = rand_param(store, "s", kB, 4 * kH);
  Param& h = rand_param(store, "h", kB, kH);
  expect_same(evaluate(store, [&](Graph& g) { return lgru_cell(g.param(a), g.param(s), g.param(h)); }),
              evaluate(store, [&](Graph& g) { return composed::lgru(g.param(a), g.param(s), g.param(h)); }), store,
              kTol);
}

TEST(OpFusedFloat, TgruCellEqualsComposed) {
  ParamStore store(3);
  Param& s = rand_param(store, "s", kB, 3 * kH);
  Param& h = rand_param(store, "h", kB, kH);
  expect_same(evaluate(store, [&](Graph& g) { return tgru_cell(g.param(s), g.param(h)); }),
              evaluate(store, [&](Graph& g) { return composed::tgru(g.param(s), g.param(h)); }), store, kTol);
}

TEST(OpFusedFloat, LrnRanSruCellsEqualComposed) {
  for (bool t : {false, true}) {
    ParamStore store(4);
    Param& a3 = rand_param(store, "a3", kB, 3 * kH);
    Param& a4 = rand_param(store, "a4", kB, 4 * kH);
    Param& q2 = rand_param(store, "q2", kB, 2 * kH);
    Param& s = rand_param(store, "s", kB, kH);
    // Each comparison leaves the unused parameters' gradients at zero in both runs; compare only the used.
    auto lrn_f = evaluate(store, [&](Graph& g) { return lrn_cell(g.param(a3), g.param(s), t); });
    auto lrn_c = evaluate(store, [&](Graph& g) { return composed::lrn(g.param(a3), g.param(s), t); });
    auto ran_f = evaluate(store, [&](Graph& g) { return ran_cell(g.param(a3), g.param(q2), g.param(s), t); });
    auto ran_c = evaluate(store, [&](Graph& g) { return composed::ran(g.param(a3), g.param(q2), g.param(s), t); });
    auto sru_f = evaluate(store, [&](Graph& g) { return sru_cell(g.param(a4), g.param(s), t); });
    auto sru_c = evaluate(store, [&](Graph& g) { return composed::sru(g.param(a4), g.param(s), t); });
    auto near = [&](const Evaluated& f, const Evaluated& c, std::initializer_list<size_t> used, const char* what) {
      EXPECT_LE((f.value - c.value).cwiseAbs().maxCoeff(), kTol) << what << " values, tanh_out=" << t;
      for (size_t k : used) {
        EXPECT_LE((f.grads[k] - c.grads[k]).cwiseAbs().maxCoeff(), kTol) << what << " grad " << k;
        EXPECT_GT(f.grads[k].cwiseAbs().maxCoeff(), 0) << what << " grad " << k << " is all zero";
      }
    };
    near(lrn_f, lrn_c, {0, 3}, "lrn_cell");
    near(ran_f, ran_c, {0, 2, 3}, "ran_cell");
    near(sru_f, sru_c, {1, 3}, "sru_cell");
  }
}

}  // namespace
}  // namespace twin::test
