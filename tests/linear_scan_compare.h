// Shared by the float (test_linear_scan.cc) and double (grad_ops_linear_scan.cc) tests of the cells that run a whole
// sequence through the fused scan (rnn/linear_recurrence.h): the same run, once through run_rnn (one linear_scan node
// per sequence) and once through the loop run_rnn had before (project_inputs, then step() per time step with
// mask_carry on padding: the composed ops, or SRU's fused sru_cell), compared value by value and gradient by gradient
// (every parameter, the input and the initial state), in both directions on a padded batch.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cell_variants.h"
#include "fused_compare.h"
#include "ops/ops.h"
#include "rnn/cell_factory.h"
#include "rnn/rnn.h"
#include "test_util.h"

namespace twin::test {

// run_rnn's step loop as it was before whole-sequence cells: [h_all ; last h ; last c].
inline Var run_by_steps(const Cell& cell, Var x, const Mat& mask, Index batch, Dir dir, CellState s) {
  Graph& g = *x.g;
  const Index steps = x.rows() / batch;
  Var xp = cell.project_inputs(x);
  std::vector<Var> hs(static_cast<size_t>(steps));
  for (Index k = 0; k < steps; ++k) {
    const Index t = dir == Dir::kForward ? k : steps - 1 - k;
    CellState next = cell.step(slice_rows(xp, t * batch, batch), s);
    const Mat m_t = mask.middleRows(t * batch, batch);
    if ((m_t.array() != 1).any()) {
      Var m = g.constant(m_t);
      next.h = mask_carry(next.h, s.h, m);
      if (cell.has_memory()) next.c = mask_carry(next.c, s.c, m);
    }
    s = next;
    hs[static_cast<size_t>(t)] = s.h;
  }
  std::vector<Var> parts{stack_rows(hs), s.h};
  if (cell.has_memory()) parts.push_back(s.c);
  return stack_rows(parts);
}

inline Var run_whole(const Cell& cell, Var x, const Mat& mask, Index batch, Dir dir, CellState s) {
  SeqOut out = run_rnn(cell, x, mask, batch, dir, s);
  std::vector<Var> parts{out.h_all, out.last.h};
  if (cell.has_memory()) parts.push_back(out.last.c);
  return stack_rows(parts);
}

// Both runs of `cfg` (I = 3, T = 4, B = 3 with lengths 4, 2, 3, a random initial state), compared within tol.
inline void expect_scan_equals_steps(const CellConfig& cfg, double tol) {
  constexpr Index kT = 4, kB = 3;
  constexpr int kI = 3;
  for (Dir dir : {Dir::kForward, Dir::kBackward}) {
    SCOPED_TRACE(cfg.type + (dir == Dir::kForward ? " forward" : " backward"));
    ParamStore store(4);
    CellConfig c = cfg;
    c.init_scale = 0.5;
    auto cell = make_cell(c, kI, store, "cell");
    ASSERT_TRUE(cell->runs_whole_sequence());
    Param& x = rand_param(store, "x", kT * kB, kI);
    Param& h0 = rand_param(store, "h0", kB, c.hidden);
    Param& c0 = rand_param(store, "c0", kB, c.hidden);
    const Mat mask = time_major_mask(kT, {4, 2, 3});
    auto init = [&](Graph& g) { return CellState{g.param(h0), cell->has_memory() ? g.param(c0) : Var{}}; };
    auto whole = evaluate(store, [&](Graph& g) { return run_whole(*cell, g.param(x), mask, kB, dir, init(g)); });
    auto steps = evaluate(store, [&](Graph& g) { return run_by_steps(*cell, g.param(x), mask, kB, dir, init(g)); });
    ASSERT_EQ(whole.value.rows(), steps.value.rows());
    EXPECT_LE((whole.value - steps.value).cwiseAbs().maxCoeff(), tol) << "forward values differ";
    ASSERT_EQ(whole.grads.size(), steps.grads.size());
    for (size_t i = 0; i < whole.grads.size(); ++i) {
      const std::string& name = store.all()[i]->name;
      EXPECT_LE((whole.grads[i] - steps.grads[i]).cwiseAbs().maxCoeff(), tol) << "gradient of " << name << " differs";
      // Unused, so zero in both runs: c0 without a memory; h0 of a memory cell run forward (its h depends on c only,
      // and h0 is carried only through padding before a sequence's first step, which a forward run never has).
      const bool unused =
          name == "c0" ? !cell->has_memory() : name == "h0" && cell->has_memory() && dir == Dir::kForward;
      if (!unused) {
        EXPECT_GT(whole.grads[i].cwiseAbs().maxCoeff(), 0) << "gradient of " << name << " is all zero";
      }
    }
  }
}

// expect_scan_equals_steps for every cell variant (cell_variants.h, hidden 4) that runs through the scan, but QRNN's
// width 2, which has no step loop (test_linear_scan.cc holds it equal to its width-1 formulation); returns how many.
inline int expect_every_scan_cell_equals_steps(double tol) {
  int checked = 0;
  for (const NamedCellConfig& v : cell_variants(4)) {
    ParamStore probe;
    if (!make_cell(v.cfg, 3, probe, "p")->runs_whole_sequence() || v.cfg.filter_width == 2) continue;
    SCOPED_TRACE(v.name);
    ++checked;
    expect_scan_equals_steps(v.cfg, tol);
  }
  return checked;
}

}  // namespace twin::test
