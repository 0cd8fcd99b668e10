// The linear-chain CRF (core/nn/crf.h) against brute-force enumeration of all K^T tag paths on random
// short sentences (T = 1..5, K = 4), with and without start/end scores and the BMES constraint: Viterbi,
// cost-augmented Viterbi, log Z, the hinge and NLL values; the batched ops on a padded batch equal the sum of
// per-sentence values and gradients, padding rows get no gradient, the hinge is exactly 0 (and so is its
// gradient) when the gold path wins by more than the margin, results do not depend on the thread count, and
// bad input is a clear Error.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "base/rng.h"
#include "base/threads.h"
#include "bmes.h"
#include "nn/crf.h"
#include "graph/param.h"
#include "test_util.h"

namespace twin::cws {
namespace {

using Path = std::vector<int>;
constexpr int K = kNumTags;

Mat randn(Rng& rng, Index rows, Index cols, Real sd = 1) {
  Mat m(rows, cols);
  rng.fill_normal(m, 0, sd);
  return m;
}

std::vector<Path> all_paths(Index T) {
  std::vector<Path> out(1);
  for (Index t = 0; t < T; ++t) {
    std::vector<Path> next;
    for (const Path& p : out)
      for (int k = 0; k < K; ++k) {
        next.push_back(p);
        next.back().push_back(k);
      }
    out = std::move(next);
  }
  return out;
}

// One sentence: emissions [T, K], transitions and optional start/end.
struct Sent {
  Mat emis, trans, start, end;
  bool se = false;
  const Mat* st() const { return se ? &start : nullptr; }
  const Mat* en() const { return se ? &end : nullptr; }
};

Sent make_sent(Rng& rng, Index T, bool se) {
  return {randn(rng, T, K), randn(rng, K, K), randn(rng, 1, K), randn(rng, 1, K), se};
}

double ref_score(const Sent& s, const Path& y) {
  double v = 0;
  for (size_t t = 0; t < y.size(); ++t) {
    v += s.emis(static_cast<Index>(t), y[t]);
    if (t > 0) v += s.trans(y[t - 1], y[t]);
  }
  if (s.se && !y.empty()) v += s.start(0, y.front()) + s.end(0, y.back());
  return v;
}

bool ref_allowed(const CrfConstraint* c, const Path& y) {
  if (!c || y.empty()) return true;
  if (c->start_ok(0, y.front()) == 0 || c->end_ok(0, y.back()) == 0) return false;
  for (size_t t = 1; t < y.size(); ++t)
    if (c->allowed(y[t - 1], y[t]) == 0) return false;
  return true;
}

int hamming(const Path& a, const Path& b) {
  int h = 0;
  for (size_t t = 0; t < a.size(); ++t) h += a[t] != b[t];
  return h;
}

// argmax over allowed paths of s(y) + cost * Hamming(y, gold); returns the path and its augmented score.
std::pair<Path, double> brute_best(const Sent& s, const CrfConstraint* c, const Path* gold, double cost) {
  Path best;
  double bv = -std::numeric_limits<double>::infinity();
  for (const Path& y : all_paths(s.emis.rows())) {
    if (!ref_allowed(c, y)) continue;
    const double v = ref_score(s, y) + (gold ? cost * hamming(y, *gold) : 0.0);
    if (v > bv) bv = v, best = y;
  }
  return {best, bv};
}

double brute_log_z(const Sent& s) {
  double z = 0;
  for (const Path& y : all_paths(s.emis.rows())) z += std::exp(ref_score(s, y));
  return std::log(z);
}

Path random_gold(Rng& rng, Index T, const CrfConstraint* c) {
  std::vector<Path> ok;
  for (const Path& y : all_paths(T))
    if (ref_allowed(c, y)) ok.push_back(y);
  return ok[static_cast<size_t>(rng.uniform_int(0, static_cast<std::int64_t>(ok.size()) - 1))];
}

double tol(double v) { return 2e-5 * std::max(1.0, std::abs(v)); }

// The cases every brute-force test runs: T = 1..5, start/end on or off, constraint on or off, 3 seeds.
template <typename F>
void for_cases(F&& f) {
  const CrfConstraint bmes = bmes_constraint();
  for (Index T = 1; T <= 5; ++T)
    for (bool se : {false, true})
      for (bool constrained : {false, true})
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
          Rng rng(seed * 1000 + static_cast<std::uint64_t>(T) * 10 + (se ? 2 : 0) + (constrained ? 1 : 0));
          const Sent s = make_sent(rng, T, se);
          const CrfConstraint* c = constrained ? &bmes : nullptr;
          SCOPED_TRACE("T=" + std::to_string(T) + " start/end=" + std::to_string(se) + " constrained=" +
                       std::to_string(constrained) + " seed=" + std::to_string(seed));
          f(s, c, random_gold(rng, T, c));
        }
}

// The value of a batched op on one sentence (B = 1), with constant inputs.
double op_value(bool hinge, const Sent& s, const Path& gold, Real eta, const CrfConstraint* c) {
  Graph g;
  Var st = s.se ? g.constant(s.start) : Var{}, en = s.se ? g.constant(s.end) : Var{};
  const std::vector<Index> len = {s.emis.rows()};
  Var e = g.constant(s.emis), tr = g.constant(s.trans);
  Var l = hinge ? crf_hinge_loss(e, len, tr, st, en, {gold}, eta, c) : crf_nll(e, len, tr, st, en, {gold});
  return l.val()(0, 0);
}

TEST(Crf, PathScoreHandComputed) {
  Sent s;
  s.emis = Mat::Zero(3, K);
  s.emis(0, kB) = 1, s.emis(1, kM) = 2, s.emis(2, kE) = 3;
  s.trans = Mat::Zero(K, K);
  s.trans(kB, kM) = 0.5, s.trans(kM, kE) = -0.25;
  s.start = Mat::Constant(1, K, 10), s.end = Mat::Constant(1, K, 100);
  EXPECT_NEAR(path_score(s.emis, s.trans, nullptr, nullptr, {kB, kM, kE}), 6.25, 1e-6);
  EXPECT_NEAR(path_score(s.emis, s.trans, &s.start, &s.end, {kB, kM, kE}), 116.25, 1e-6);
  EXPECT_NEAR(path_score(s.emis, s.trans, nullptr, nullptr, {kS, kS, kS}), 0, 1e-6);
}

TEST(Crf, ViterbiMatchesBruteForce) {
  for_cases([](const Sent& s, const CrfConstraint* c, const Path&) {
    const Path v = viterbi(s.emis, s.trans, s.st(), s.en(), c);
    const auto [best, score] = brute_best(s, c, nullptr, 0);
    EXPECT_EQ(v, best);
    EXPECT_NEAR(path_score(s.emis, s.trans, s.st(), s.en(), v), score, tol(score));
    if (c) {
      EXPECT_TRUE(ref_allowed(c, v));
    }
  });
}

TEST(Crf, CostAugmentedViterbiMatchesBruteForce) {
  for (double cost : {0.2, 100.0})
    for_cases([cost](const Sent& s, const CrfConstraint* c, const Path& gold) {
      const Path v = viterbi(s.emis, s.trans, s.st(), s.en(), c, &gold, cost);
      EXPECT_EQ(v, brute_best(s, c, &gold, cost).first) << "cost " << cost;
      if (cost > 50 && !c) {   // a huge cost: the best path differs from the gold everywhere
        EXPECT_EQ(hamming(v, gold), static_cast<int>(gold.size()));
      }
    });
}

TEST(Crf, LogPartitionMatchesBruteForce) {
  for_cases([](const Sent& s, const CrfConstraint* c, const Path&) {
    if (c) return;   // log Z has no constraint
    const double z = brute_log_z(s);
    EXPECT_NEAR(log_partition(s.emis, s.trans, s.st(), s.en()), z, tol(z));
  });
}

TEST(Crf, LogPartitionIsStableForLargeScores) {
  Rng rng(5);
  Sent s = make_sent(rng, 4, true);
  s.emis *= 300;   // exp() of the path scores overflows double: compare with a max-shifted sum
  double mx = -1e300;
  for (const Path& y : all_paths(4)) mx = std::max(mx, ref_score(s, y));
  double z = 0;
  for (const Path& y : all_paths(4)) z += std::exp(ref_score(s, y) - mx);
  const double lz = log_partition(s.emis, s.trans, &s.start, &s.end);
  EXPECT_TRUE(std::isfinite(lz));
  EXPECT_NEAR(lz, mx + std::log(z), tol(lz));
}

TEST(Crf, HingeAndNllValuesMatchBruteForce) {
  for_cases([](const Sent& s, const CrfConstraint* c, const Path& gold) {
    const double hinge = brute_best(s, c, &gold, 0.2).second - ref_score(s, gold);
    EXPECT_GE(hinge, 0);
    EXPECT_NEAR(op_value(true, s, gold, Real(0.2), c), hinge, tol(hinge));
    const double nll = brute_log_z(s) - ref_score(s, gold);
    EXPECT_NEAR(op_value(false, s, gold, 0, nullptr), nll, tol(nll));
  });
}

// A padded batch of 3 sentences (T = 5, lengths 5, 2, 4) whose padding rows hold huge values that would
// show if they were read.
struct Batch {
  std::vector<Index> lengths = {5, 2, 4};
  Index T = 5, B = 3;
  std::vector<Sent> sents;
  std::vector<Path> gold;
  Mat emissions;
  Batch(bool se, std::uint64_t seed, const CrfConstraint* gold_constraint) {
    Rng rng(seed);
    const Sent shared = make_sent(rng, 1, se);   // the transitions all sentences share
    emissions = Mat::Constant(T * B, K, Real(1e4));
    for (Index b = 0; b < B; ++b) {
      Sent s = shared;
      s.emis = randn(rng, lengths[static_cast<size_t>(b)], K);
      for (Index t = 0; t < s.emis.rows(); ++t) emissions.row(t * B + b) = s.emis.row(t);
      gold.push_back(random_gold(rng, s.emis.rows(), gold_constraint));
      sents.push_back(std::move(s));
    }
  }
};

struct Grads {
  double value = 0;
  Mat de, dtr, dst, den;
};

// Value and gradients of a batched op (loss seeded with 1) on emissions E and the transitions of s.
Grads run_op(bool hinge, const Mat& E, const std::vector<Index>& len, const Sent& s, const std::vector<Path>& gold,
             const CrfConstraint* c) {
  ParamStore store;
  auto copy = [](const Mat& v) { return [v](Mat& m, Rng&) { m = v; }; };
  Param& pe = store.add("E", E.rows(), K, copy(E));
  Param& pt = store.add("trans", K, K, copy(s.trans));
  Param& ps = store.add("start", 1, K, copy(s.start));
  Param& pn = store.add("end", 1, K, copy(s.end));
  store.zero_grad();
  Graph g;
  Var st = s.se ? g.param(ps) : Var{}, en = s.se ? g.param(pn) : Var{};
  Var l = hinge ? crf_hinge_loss(g.param(pe), len, g.param(pt), st, en, gold, Real(0.2), c)
                : crf_nll(g.param(pe), len, g.param(pt), st, en, gold);
  g.backward(l);
  return {l.val()(0, 0), pe.grad, pt.grad, ps.grad, pn.grad};
}

TEST(Crf, PaddedBatchEqualsSumOfSentences) {
  const CrfConstraint bmes = bmes_constraint();
  for (bool hinge : {true, false})
    for (bool se : {false, true})
      for (const CrfConstraint* c : {static_cast<const CrfConstraint*>(nullptr), &bmes}) {
        if (!hinge && c) continue;
        SCOPED_TRACE(std::string(hinge ? "hinge" : "nll") + (se ? " start/end" : "") + (c ? " constrained" : ""));
        const Batch bt(se, 17, &bmes);
        const Grads all = run_op(hinge, bt.emissions, bt.lengths, bt.sents[0], bt.gold, c);
        double expect = 0;
        Mat dtr = Mat::Zero(K, K), dst = Mat::Zero(1, K), den = Mat::Zero(1, K);
        for (Index b = 0; b < bt.B; ++b) {
          const Sent& s = bt.sents[static_cast<size_t>(b)];
          const Path& y = bt.gold[static_cast<size_t>(b)];
          expect += hinge ? brute_best(s, c, &y, 0.2).second - ref_score(s, y) : brute_log_z(s) - ref_score(s, y);
          const Grads one = run_op(hinge, s.emis, {s.emis.rows()}, s, {y}, c);
          for (Index t = 0; t < bt.T; ++t) {
            const Mat row = all.de.row(t * bt.B + b);
            if (t < s.emis.rows())
              EXPECT_LE((row - one.de.row(t)).cwiseAbs().maxCoeff(), 1e-5) << "sentence " << b << " t " << t;
            else
              EXPECT_TRUE(row.isZero(0)) << "padding row of sentence " << b << " at t " << t << " got a gradient";
          }
          dtr += one.dtr, dst += one.dst, den += one.den;
        }
        EXPECT_NEAR(all.value, expect, tol(expect));
        EXPECT_GT(all.value, 0);
        EXPECT_LE((all.dtr - dtr).cwiseAbs().maxCoeff(), 1e-5);
        EXPECT_GT(all.dtr.cwiseAbs().maxCoeff(), 0);
        if (se) {
          EXPECT_LE((all.dst - dst).cwiseAbs().maxCoeff(), 1e-5);
          EXPECT_LE((all.den - den).cwiseAbs().maxCoeff(), 1e-5);
        }
      }
}

TEST(Crf, EmptySentenceContributesNothing) {
  Rng rng(3);
  const Sent s = make_sent(rng, 3, true);
  Mat E = Mat::Constant(6, K, Real(1e4));   // T = 3, B = 2; sentence 1 is empty
  for (Index t = 0; t < 3; ++t) E.row(t * 2) = s.emis.row(t);
  const Path y = {kB, kE, kS};
  for (bool hinge : {true, false}) {
    const Grads two = run_op(hinge, E, {3, 0}, s, {y, {}}, nullptr);
    const Grads one = run_op(hinge, s.emis, {3}, s, {y}, nullptr);
    EXPECT_NEAR(two.value, one.value, tol(one.value));
    for (Index t = 0; t < 3; ++t) EXPECT_TRUE(two.de.row(t * 2 + 1).isZero(0));
  }
  EXPECT_TRUE(crf_decode(E, {3, 0}, s.trans, nullptr, nullptr)[1].empty());
}

TEST(Crf, HingeIsZeroWithZeroGradientWhenGoldWinsByTheMargin) {
  Rng rng(11);
  Sent s = make_sent(rng, 5, true);
  s.emis *= Real(0.1);
  s.trans *= Real(0.1);
  s.start *= Real(0.1);
  s.end *= Real(0.1);
  const Path y = {kB, kE, kS, kB, kE};
  for (size_t t = 0; t < y.size(); ++t) s.emis(static_cast<Index>(t), y[t]) += 5;
  const Grads r = run_op(true, s.emis, {5}, s, {y}, nullptr);
  EXPECT_EQ(r.value, 0);
  EXPECT_TRUE(r.de.isZero(0) && r.dtr.isZero(0) && r.dst.isZero(0) && r.den.isZero(0));
  // The NLL of the same point is small but positive: it never reaches 0.
  EXPECT_GT(run_op(false, s.emis, {5}, s, {y}, nullptr).value, 0);
}

TEST(Crf, DecodeBatchEqualsPerSentenceViterbi) {
  const CrfConstraint bmes = bmes_constraint();
  for (const CrfConstraint* c : {static_cast<const CrfConstraint*>(nullptr), &bmes}) {
    const Batch bt(true, 23, nullptr);
    const Sent& s0 = bt.sents[0];
    const auto paths = crf_decode(bt.emissions, bt.lengths, s0.trans, &s0.start, &s0.end, c);
    ASSERT_EQ(paths.size(), 3u);
    for (size_t b = 0; b < 3; ++b) {
      const Sent& s = bt.sents[b];
      EXPECT_EQ(paths[b], viterbi(s.emis, s.trans, &s.start, &s.end, c));
      EXPECT_EQ(paths[b], brute_best(s, c, nullptr, 0).first);
    }
  }
}

TEST(Crf, SameNumbersOnOneAndTwoThreads) {
  const int saved = num_threads();
  Rng rng(29);
  const Index B = 40, T = 12;
  std::vector<Index> len;
  std::vector<Path> gold;
  for (Index b = 0; b < B; ++b) {
    len.push_back(rng.uniform_int(1, T));
    Path y;
    for (Index t = 0; t < len.back(); ++t) y.push_back(static_cast<int>(rng.uniform_int(0, K - 1)));
    gold.push_back(y);
  }
  const Mat E = randn(rng, T * B, K);
  const Sent s = make_sent(rng, 1, true);
  for (bool hinge : {true, false}) {
    Grads runs[2];
    for (int th : {1, 2}) {
      set_num_threads(th);
      runs[th - 1] = run_op(hinge, E, len, s, gold, nullptr);
    }
    EXPECT_EQ(runs[0].value, runs[1].value);
    EXPECT_TRUE(runs[0].de == runs[1].de && runs[0].dtr == runs[1].dtr && runs[0].dst == runs[1].dst &&
                runs[0].den == runs[1].den);
  }
  set_num_threads(saved);
}

TEST(Crf, BadInputIsAClearError) {
  using test::contains;
  using test::error_of;
  const CrfConstraint bmes = bmes_constraint();
  const Batch bt(true, 31, &bmes);
  const Sent& s = bt.sents[0];
  auto nll = [&](const Mat& E, std::vector<Index> len, std::vector<Path> gold, const Mat& tr) {
    Graph g;
    crf_nll(g.constant(E), len, g.constant(tr), g.constant(s.start), Var{}, gold);
  };
  auto hinge = [&](std::vector<Path> gold, Real eta) {
    Graph g;
    crf_hinge_loss(g.constant(bt.emissions), bt.lengths, g.constant(s.trans), Var{}, Var{}, gold, eta, &bmes);
  };
  auto wrong_len = bt.gold;
  wrong_len[1].push_back(kS);
  EXPECT_TRUE(contains(error_of([&] { nll(bt.emissions, bt.lengths, wrong_len, s.trans); }),
                       "gold tag sequence of sentence 1 has 3 tags for 2 positions"));
  auto bad_tag = bt.gold;
  bad_tag[2][1] = 4;
  EXPECT_TRUE(contains(error_of([&] { nll(bt.emissions, bt.lengths, bad_tag, s.trans); }),
                       "tag 4 at position 1 of sentence 2 outside [0, 4)"));
  bad_tag[2][1] = -1;
  EXPECT_TRUE(contains(error_of([&] { nll(bt.emissions, bt.lengths, bad_tag, s.trans); }), "tag -1"));
  EXPECT_TRUE(contains(error_of([&] { nll(bt.emissions, {5, 6, 4}, bt.gold, s.trans); }),
                       "length 6 of sentence 1 outside [0, 5]"));
  EXPECT_TRUE(contains(error_of([&] { nll(bt.emissions.topRows(14), bt.lengths, bt.gold, s.trans); }),
                       "not [T*B, K] for B = 3"));
  EXPECT_TRUE(contains(error_of([&] { nll(bt.emissions, bt.lengths, {bt.gold[0]}, s.trans); }),
                       "1 gold tag sequences for 3 sentences"));
  EXPECT_TRUE(contains(error_of([&] { nll(bt.emissions, bt.lengths, bt.gold, s.trans.topRows(3)); }),
                       "transitions [3x4] for 4 tags"));
  auto forbidden = bt.gold;
  forbidden[0][0] = kM;
  EXPECT_TRUE(contains(error_of([&] { hinge(forbidden, Real(0.2)); }), "gold path of sentence 0 starts with tag 1"));
  EXPECT_TRUE(contains(error_of([&] { hinge(bt.gold, Real(-0.1)); }), "must be finite and >= 0"));
  EXPECT_EQ(error_of([&] { hinge(bt.gold, Real(0.2)); }), test::kNoErrorThrown);

  EXPECT_TRUE(contains(error_of([&] { path_score(s.emis, s.trans, nullptr, nullptr, {kB}); }),
                       "has 1 tags for 5 positions"));
  const Mat bad_start = s.start.leftCols(3);
  EXPECT_TRUE(contains(error_of([&] { viterbi(s.emis, s.trans, &bad_start, nullptr); }), "start [1x3]"));
  CrfConstraint two = bmes;
  two.allowed(0, 0) = 2;
  EXPECT_TRUE(contains(error_of([&] { viterbi(s.emis, s.trans, nullptr, nullptr, &two); }), "0/1 mask"));
  CrfConstraint none = bmes;
  none.allowed.setZero();
  EXPECT_TRUE(contains(error_of([&] { viterbi(s.emis, s.trans, nullptr, nullptr, &none); }), "no path of length 5"));
  EXPECT_TRUE(contains(error_of([&] { crf_decode(bt.emissions, {5, 2, 4}, s.trans, nullptr, nullptr, &none); }),
                       "sentence 0"));
  EXPECT_TRUE(contains(error_of([&] { crf_decode(bt.emissions, {7, 2, 4}, s.trans, nullptr, nullptr); }),
                       "length 7 of sentence 0"));
}

}  // namespace
}  // namespace twin::cws
