// Gradient checks (double) of the linear-chain CRF losses (core/nn/crf.h) on a padded batch of three
// sentences of different lengths: the NLL (smooth) with and without start/end scores, and the max-margin
// hinge (piecewise linear) at points where the cost-augmented best path of every sentence is unique by a
// wide gap and differs from the gold path, so that finite differences see one linear piece.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "bmes.h"
#include "nn/crf.h"
#include "gradcheck.h"

namespace twin::cws {
namespace {

using twin::test::GradCheck;
using Path = std::vector<int>;
constexpr int K = kNumTags;

const std::vector<Index> kLengths = {4, 2, 3};   // T = 4, B = 3: padding in sentences 1 and 2
constexpr Index kTime = 4, kBatch = 3;

// BMES-valid gold paths (so the constrained hinge accepts them).
const std::vector<Path> kGold = {{kB, kE, kS, kS}, {kS, kS}, {kB, kM, kE}};

struct Inputs {
  GradCheck::Input emis, trans, start, end;
};

Inputs make_inputs(GradCheck& gc) { return {gc.input(kTime * kBatch, K), gc.input(K, K), gc.input(1, K), gc.input(1, K)}; }

// The two best cost-augmented scores of sentence b (brute force over all allowed paths) and the argmax.
struct Top2 {
  double first = -std::numeric_limits<double>::infinity(), second = first;
  Path best;
};

Top2 top2(const Inputs& in, bool se, Index b, double eta, const CrfConstraint* c) {
  const Index L = kLengths[static_cast<size_t>(b)];
  const Path& y = kGold[static_cast<size_t>(b)];
  const Mat& E = in.emis.p->value;
  const Mat& tr = in.trans.p->value;
  Top2 r;
  Path p(static_cast<size_t>(L), 0);
  for (;;) {
    bool ok = true;
    double s = 0;
    for (Index t = 0; t < L; ++t) {
      const int k = p[static_cast<size_t>(t)];
      s += E(t * kBatch + b, k) + (k != y[static_cast<size_t>(t)] ? eta : 0.0);
      if (t > 0) {
        const int i = p[static_cast<size_t>(t - 1)];
        s += tr(i, k);
        ok = ok && (!c || c->allowed(i, k) != 0);
      }
    }
    if (se) s += in.start.p->value(0, p.front()) + in.end.p->value(0, p.back());
    ok = ok && (!c || (c->start_ok(0, p.front()) != 0 && c->end_ok(0, p.back()) != 0));
    if (ok && s > r.first) {
      r.second = r.first, r.first = s, r.best = p;
    } else if (ok && s > r.second) {
      r.second = s;
    }
    Index t = 0;   // next path (odometer)
    while (t < L && ++p[static_cast<size_t>(t)] == K) p[static_cast<size_t>(t++)] = 0;
    if (t == L) break;
  }
  return r;
}

void check_nll(bool se) {
  GradCheck gc(se ? 3 : 4);
  const Inputs in = make_inputs(gc);
  gc.check([&](Graph& g) {
    return crf_nll(in.emis.in(g), kLengths, in.trans.in(g), se ? in.start.in(g) : Var{}, se ? in.end.in(g) : Var{},
                   kGold);
  });
}

void check_hinge(bool se, double eta, const CrfConstraint* c, std::uint64_t seed) {
  GradCheck gc(seed);
  const Inputs in = make_inputs(gc);
  for (Index b = 0; b < kBatch; ++b) {   // the precondition of a finite-difference check of a piecewise-linear loss
    const Top2 t = top2(in, se, b, eta, c);
    ASSERT_GT(t.first - t.second, 1e-3) << "sentence " << b << ": pick another seed (augmented argmax not unique)";
    ASSERT_NE(t.best, kGold[static_cast<size_t>(b)]) << "sentence " << b << ": gold wins, the gradient would be 0";
  }
  twin::test::GradCheckOptions o;
  o.scales = {1.0};   // rescaling inputs would move the argmax against the fixed margin eta
  gc.check(
      [&](Graph& g) {
        return crf_hinge_loss(in.emis.in(g), kLengths, in.trans.in(g), se ? in.start.in(g) : Var{},
                              se ? in.end.in(g) : Var{}, kGold, static_cast<Real>(eta), c);
      },
      o);
}

TEST(CrfGrad, NllWithStartEnd) { check_nll(true); }

TEST(CrfGrad, NllWithoutStartEnd) { check_nll(false); }

TEST(CrfGrad, HingeWithStartEnd) { check_hinge(true, 0.2, nullptr, 5); }

TEST(CrfGrad, HingeWithoutStartEndLargeCost) { check_hinge(false, 1.5, nullptr, 6); }

TEST(CrfGrad, HingeBmesConstrained) {
  const CrfConstraint bmes = bmes_constraint();
  check_hinge(true, 0.2, &bmes, 7);
}

}  // namespace
}  // namespace twin::cws
