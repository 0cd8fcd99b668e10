#include "ops/linear_scan.h"

#include <algorithm>

namespace twin {

namespace {

// A tile is one sequence's block of up to kTileCols columns: the unit of threading. Every tile runs all T steps by
// itself (the recurrence is element-wise), so the threads share nothing but the read-only inputs.
constexpr Index kTileCols = 128;
// Below this many elements (T·B·H) the loop stays on one thread: the fork costs more than it saves.
constexpr Index kParallelWork = Index{1} << 15;

struct Shape {
  Index steps, batch, cols;
  // Row of step s in processing order (s = 0 is the first step processed).
  Index row(Index s, bool reverse, Index b) const { return (reverse ? steps - 1 - s : s) * batch + b; }
};

// f(b, j0, w) for every tile: sequence b, columns [j0, j0 + w).
template <class F>
void for_tiles(const Shape& sh, F&& f) {
  const Index per_row = (sh.cols + kTileCols - 1) / kTileCols, tiles = sh.batch * per_row;
#pragma omp parallel for schedule(static) if (tiles > 1 && sh.steps * sh.batch * sh.cols >= kParallelWork)
  for (Index k = 0; k < tiles; ++k) {
    const Index b = k / per_row, j0 = (k % per_row) * kTileCols;
    f(b, j0, std::min(kTileCols, sh.cols - j0));
  }
}

Shape check_shapes(const char* op, Var x, Var s0, const Mat& mask) {
  const Index B = s0.rows();
  TW_CHECK(B > 0 && x.rows() % B == 0 && x.cols() == s0.cols(), op, ": ", shape_str(x), " is not [T*B, H] for the ",
           "initial state ", shape_str(s0));
  TW_CHECK(mask.size() == 0 || (mask.rows() == x.rows() && mask.cols() == 1), op, ": mask ", shape_str(mask), " for ",
           shape_str(x));
  TW_CHECK(mask.size() == 0 || (mask.array() == 0 || mask.array() == 1).all(), op, ": the mask must hold 0 and 1 only");
  return {x.rows() / B, B, x.cols()};
}

bool real_step(const Mat& mask, Index row) { return mask.size() == 0 || mask(row, 0) != 0; }

}  // namespace

Var linear_scan(Var a, Var b, Var s0, const Mat& mask, bool reverse, ScanForm form) {
  Graph& g = *a.g;
  const Shape sh = check_shapes("linear_scan", a, s0, mask);
  TW_CHECK(b.rows() == a.rows() && b.cols() == a.cols(), "linear_scan: a ", shape_str(a), " but b ", shape_str(b));
  const bool convex = form == ScanForm::kConvex;
  Mat s = g.take(a.rows(), a.cols());
  const Mat &av = a.val(), &bv = b.val(), &s0v = s0.val();
  for_tiles(sh, [&](Index bi, Index j0, Index w) {
    const Real* prev = s0v.data() + bi * sh.cols + j0;
    for (Index t = 0; t < sh.steps; ++t) {
      const Index row = sh.row(t, reverse, bi);
      Real* out = s.data() + row * sh.cols + j0;
      if (!real_step(mask, row)) {
        std::copy(prev, prev + w, out);
      } else {
        const Real* at = av.data() + row * sh.cols + j0;
        const Real* bt = bv.data() + row * sh.cols + j0;
        if (convex)
          for (Index j = 0; j < w; ++j) out[j] = bt[j] + at[j] * (prev[j] - bt[j]);
        else
          for (Index j = 0; j < w; ++j) out[j] = at[j] * prev[j] + bt[j];
      }
      prev = out;
    }
  });
  auto backward = [a, b, s0, mask, reverse, convex, sh](Graph& g, NodeId self) {
    const Mat &ds = g.grad(self), &sv = g.value(self), &av = g.value(a.id), &bv = g.value(b.id), &s0v = g.value(s0.id);
    Mat da = g.take(av.rows(), av.cols()), db = g.take(av.rows(), av.cols()), ds0 = g.take(s0v.rows(), s0v.cols());
    for_tiles(sh, [&](Index bi, Index j0, Index w) {
      Real carry[kTileCols] = {};   // a_{t+1} ⊙ g_{t+1}: what step t+1 hands back to s_t
      for (Index t = sh.steps - 1; t >= 0; --t) {
        const Index row = sh.row(t, reverse, bi), off = row * sh.cols + j0;
        const Real* prev = t > 0 ? sv.data() + sh.row(t - 1, reverse, bi) * sh.cols + j0
                                 : s0v.data() + bi * sh.cols + j0;
        const Real* dst = ds.data() + off;
        Real *dat = da.data() + off, *dbt = db.data() + off;
        if (!real_step(mask, row)) {   // s_t = s_{t-1}: the whole gradient passes on
          for (Index j = 0; j < w; ++j) carry[j] = dst[j] + carry[j];
          std::fill(dat, dat + w, Real(0));
          std::fill(dbt, dbt + w, Real(0));
          continue;
        }
        const Real *at = av.data() + off, *bt = bv.data() + off;
        for (Index j = 0; j < w; ++j) {
          const Real gt = dst[j] + carry[j];
          if (convex) {
            dat[j] = gt * (prev[j] - bt[j]);
            dbt[j] = gt * (Real(1) - at[j]);
          } else {
            dat[j] = gt * prev[j];
            dbt[j] = gt;
          }
          carry[j] = gt * at[j];
        }
      }
      std::copy(carry, carry + w, ds0.data() + bi * sh.cols + j0);
    });
    for (auto [id, d] : {std::pair{a.id, &da}, std::pair{b.id, &db}, std::pair{s0.id, &ds0}}) {
      if (g.needs_grad(id)) g.add_grad(id, std::move(*d));
      else g.give(std::move(*d));
    }
  };
  return g.record("linear_scan", std::move(s), {a, b, s0}, std::move(backward));
}

Var carry_steps(Var x, Var y0, const Mat& mask, bool reverse) {
  Graph& g = *x.g;
  const Shape sh = check_shapes("carry_steps", x, y0, mask);
  TW_CHECK(mask.size() > 0, "carry_steps: no mask (nothing to carry: use x itself)");
  Mat y = g.take(x.rows(), x.cols());
  const Mat &xv = x.val(), &y0v = y0.val();
  for_tiles(sh, [&](Index bi, Index j0, Index w) {
    const Real* prev = y0v.data() + bi * sh.cols + j0;
    for (Index t = 0; t < sh.steps; ++t) {
      const Index row = sh.row(t, reverse, bi);
      Real* out = y.data() + row * sh.cols + j0;
      const Real* src = real_step(mask, row) ? xv.data() + row * sh.cols + j0 : prev;
      std::copy(src, src + w, out);
      prev = out;
    }
  });
  return g.record("carry_steps", std::move(y), {x, y0}, [x, y0, mask, reverse, sh](Graph& g, NodeId self) {
    const Mat& dy = g.grad(self);
    Mat dx = g.take(dy.rows(), dy.cols()), dy0 = g.take(y0.rows(), y0.cols());
    for_tiles(sh, [&](Index bi, Index j0, Index w) {
      Real carry[kTileCols] = {};   // the gradient a padded step t+1 hands back to y_t
      for (Index t = sh.steps - 1; t >= 0; --t) {
        const Index off = sh.row(t, reverse, bi) * sh.cols + j0;
        const bool real = real_step(mask, sh.row(t, reverse, bi));
        Real* dxt = dx.data() + off;
        for (Index j = 0; j < w; ++j) {
          const Real gt = dy.data()[off + j] + carry[j];
          dxt[j] = real ? gt : Real(0);
          carry[j] = real ? Real(0) : gt;
        }
      }
      std::copy(carry, carry + w, dy0.data() + bi * sh.cols + j0);
    });
    for (auto [id, d] : {std::pair{x.id, &dx}, std::pair{y0.id, &dy0}}) {
      if (g.needs_grad(id)) g.add_grad(id, std::move(*d));
      else g.give(std::move(*d));
    }
  });
}

}  // namespace twin
