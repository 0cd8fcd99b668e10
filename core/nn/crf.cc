#include "nn/crf.h"

#include <cmath>
#include <limits>


namespace twin {

namespace {
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// One sentence's emission rows inside a time-major [T*B, K] matrix: position t is row t*B + b.
struct Rows {
  const Mat& m;
  Index B, b, len;
  double operator()(Index t, int k) const { return static_cast<double>(m(t * B + b, k)); }
};

// Transition, start and end scores in double; a constraint's disallowed moves are −∞.
struct Tables {
  int K = 0;
  std::vector<double> tr, st, en;   // [K*K], [K], [K]
  double t(int i, int j) const { return tr[static_cast<size_t>(i * K + j)]; }
};

bool mask_off(const Mat& mask, Index i, Index j) { return mask.size() != 0 && mask(i, j) == 0; }

Tables make_tables(const Mat& trans, const Mat* start, const Mat* end, const CrfConstraint* c) {
  Tables tb;
  tb.K = static_cast<int>(trans.rows());
  const auto K = static_cast<size_t>(tb.K);
  tb.tr.assign(K * K, 0.0);
  tb.st.assign(K, 0.0);
  tb.en.assign(K, 0.0);
  for (int i = 0; i < tb.K; ++i) {
    for (int j = 0; j < tb.K; ++j)
      tb.tr[static_cast<size_t>(i * tb.K + j)] = c && mask_off(c->allowed, i, j) ? kNegInf : trans(i, j);
    tb.st[static_cast<size_t>(i)] = c && mask_off(c->start_ok, 0, i) ? kNegInf : start ? (*start)(0, i) : 0.0;
    tb.en[static_cast<size_t>(i)] = c && mask_off(c->end_ok, 0, i) ? kNegInf : end ? (*end)(0, i) : 0.0;
  }
  return tb;
}

void check_mask(const char* op, const char* name, const Mat& m, Index rows, Index cols, bool may_be_empty) {
  if (may_be_empty && m.size() == 0) return;
  TW_CHECK(m.rows() == rows && m.cols() == cols, op, ": constraint.", name, " is ", shape_str(m), ", expected [",
           rows, "x", cols, "]", may_be_empty ? " or empty" : "");
  for (Index k = 0; k < m.size(); ++k)
    TW_CHECK(m.data()[k] == 0 || m.data()[k] == 1, op, ": constraint.", name, " holds ", m.data()[k],
             " at entry ", k, "; expected a 0/1 mask");
}

// Shapes of the transition tables (and constraint masks) for K tags.
void check_tables(const char* op, Index K, const Mat& trans, const Mat* start, const Mat* end,
                  const CrfConstraint* c) {
  TW_CHECK(K >= 1, op, ": emissions have no tag columns");
  TW_CHECK(trans.rows() == K && trans.cols() == K, op, ": transitions ", shape_str(trans), " for ", K,
           " tags; expected [", K, "x", K, "]");
  if (start)
    TW_CHECK(start->rows() == 1 && start->cols() == K, op, ": start ", shape_str(*start), "; expected [1x", K, "]");
  if (end) TW_CHECK(end->rows() == 1 && end->cols() == K, op, ": end ", shape_str(*end), "; expected [1x", K, "]");
  if (c) {
    check_mask(op, "allowed", c->allowed, K, K, false);
    check_mask(op, "start_ok", c->start_ok, 1, K, true);
    check_mask(op, "end_ok", c->end_ok, 1, K, true);
  }
}

std::string which(long b) { return b < 0 ? std::string() : " of sentence " + std::to_string(b); }

// A tag sequence for a sentence of len positions and K tags; b < 0 for a single sentence.
void check_tags(const char* op, const std::vector<int>& tags, Index len, Index K, long b) {
  TW_CHECK(static_cast<Index>(tags.size()) == len, op, ": gold tag sequence", which(b), " has ", tags.size(),
           " tags for ", len, " positions");
  for (size_t t = 0; t < tags.size(); ++t)
    TW_CHECK(tags[t] >= 0 && tags[t] < K, op, ": tag ", tags[t], " at position ", t, which(b), " outside [0, ", K,
             ")");
}

void check_allowed(const char* op, const CrfConstraint* c, const std::vector<int>& y, long b) {
  if (!c || y.empty()) return;
  TW_CHECK(!mask_off(c->start_ok, 0, y.front()), op, ": gold path", which(b), " starts with tag ", y.front(),
           ", which the constraint forbids");
  TW_CHECK(!mask_off(c->end_ok, 0, y.back()), op, ": gold path", which(b), " ends with tag ", y.back(),
           ", which the constraint forbids");
  for (size_t t = 1; t < y.size(); ++t)
    TW_CHECK(!mask_off(c->allowed, y[t - 1], y[t]), op, ": gold path", which(b), " has the forbidden transition ",
             y[t - 1], " -> ", y[t], " at position ", t);
}

// The batch layout: B = lengths.size() sentences, emissions [T*B, K]; returns T.
Index check_batch(const char* op, const Mat& emissions, const std::vector<Index>& lengths) {
  const auto B = static_cast<Index>(lengths.size());
  TW_CHECK(B >= 1, op, ": no sentences (lengths is empty)");
  TW_CHECK(emissions.rows() % B == 0, op, ": emissions ", shape_str(emissions), " are not [T*B, K] for B = ", B,
           " sentences");
  const Index T = emissions.rows() / B;
  for (Index b = 0; b < B; ++b)
    TW_CHECK(lengths[static_cast<size_t>(b)] >= 0 && lengths[static_cast<size_t>(b)] <= T, op, ": length ",
             lengths[static_cast<size_t>(b)], " of sentence ", b, " outside [0, ", T, "] (emissions ",
             shape_str(emissions), ", ", B, " sentences)");
  return T;
}

// The graph inputs of a batched op: their graph, shapes, the gold sequences (and that the constraint
// allows them, for the hinge).
void check_op(const char* op, Var emissions, const std::vector<Index>& lengths, Var trans, Var start, Var end,
              const std::vector<std::vector<int>>& gold, const CrfConstraint* c) {
  TW_CHECK(emissions.valid() && trans.valid(), op, ": emissions and transitions must be valid Vars");
  for (Var v : {trans, start, end})
    TW_CHECK(!v.valid() || v.g == emissions.g, op, ": transition Vars belong to another graph than the emissions");
  check_batch(op, emissions.val(), lengths);
  const Index K = emissions.cols();
  check_tables(op, K, trans.val(), start.valid() ? &start.val() : nullptr, end.valid() ? &end.val() : nullptr, c);
  TW_CHECK(gold.size() == lengths.size(), op, ": ", gold.size(), " gold tag sequences for ", lengths.size(),
           " sentences");
  for (size_t b = 0; b < gold.size(); ++b) {
    check_tags(op, gold[b], lengths[b], K, static_cast<long>(b));
    check_allowed(op, c, gold[b], static_cast<long>(b));
  }
}

double score_of(const Rows& e, const Tables& tb, const std::vector<int>& y) {
  if (e.len == 0) return 0;
  double s = tb.st[static_cast<size_t>(y.front())] + tb.en[static_cast<size_t>(y.back())];
  for (Index t = 0; t < e.len; ++t) {
    s += e(t, y[static_cast<size_t>(t)]);
    if (t > 0) s += tb.t(y[static_cast<size_t>(t - 1)], y[static_cast<size_t>(t)]);
  }
  return s;
}

// Viterbi: the best path under tb into `path`, cost-augmented when gold is given; returns its (augmented)
// score, −∞ when no path is allowed. Ties go to the lower index. Never throws (runs in parallel loops).
double best_path(const Rows& e, const Tables& tb, const std::vector<int>* gold, double cost, std::vector<int>& path) {
  const Index L = e.len;
  const int K = tb.K;
  path.assign(static_cast<size_t>(L), 0);
  if (L == 0) return 0;
  auto aug = [&](Index t, int k) { return gold && (*gold)[static_cast<size_t>(t)] != k ? cost : 0.0; };
  std::vector<double> delta(static_cast<size_t>(K)), next(static_cast<size_t>(K));
  std::vector<int> bp(static_cast<size_t>(L * K), 0);
  for (int k = 0; k < K; ++k) delta[static_cast<size_t>(k)] = tb.st[static_cast<size_t>(k)] + e(0, k) + aug(0, k);
  for (Index t = 1; t < L; ++t) {
    for (int j = 0; j < K; ++j) {
      double best = kNegInf;
      int arg = 0;
      for (int i = 0; i < K; ++i) {
        const double v = delta[static_cast<size_t>(i)] + tb.t(i, j);
        if (v > best) best = v, arg = i;
      }
      next[static_cast<size_t>(j)] = best + e(t, j) + aug(t, j);
      bp[static_cast<size_t>(t * K + j)] = arg;
    }
    delta.swap(next);
  }
  double best = kNegInf;
  int arg = 0;
  for (int k = 0; k < K; ++k) {
    const double v = delta[static_cast<size_t>(k)] + tb.en[static_cast<size_t>(k)];
    if (v > best) best = v, arg = k;
  }
  path[static_cast<size_t>(L - 1)] = arg;
  for (Index t = L - 1; t > 0; --t)
    path[static_cast<size_t>(t - 1)] = bp[static_cast<size_t>(t * K + path[static_cast<size_t>(t)])];
  return best;
}

double log_sum_exp(const std::vector<double>& v) {
  double mx = kNegInf;
  for (double x : v) mx = std::max(mx, x);
  if (mx == kNegInf) return kNegInf;
  double s = 0;
  for (double x : v) s += std::exp(x - mx);
  return mx + std::log(s);
}

// log Z by the forward algorithm. With `unary` and `pair`, also the marginals by forward–backward:
// unary[t*K + k] = P(y_t = k) and pair[i*K + j] += Σ_{t>0} P(y_{t-1} = i, y_t = j).
double forward_backward(const Rows& e, const Tables& tb, std::vector<double>* unary, std::vector<double>* pair) {
  const Index L = e.len;
  const int K = tb.K;
  const auto Ks = static_cast<size_t>(K);
  if (L == 0) return 0;
  std::vector<double> alpha(static_cast<size_t>(L) * Ks), tmp(Ks);
  auto A = [&](Index t, int k) -> double& { return alpha[static_cast<size_t>(t) * Ks + static_cast<size_t>(k)]; };
  for (int k = 0; k < K; ++k) A(0, k) = tb.st[static_cast<size_t>(k)] + e(0, k);
  for (Index t = 1; t < L; ++t)
    for (int j = 0; j < K; ++j) {
      for (int i = 0; i < K; ++i) tmp[static_cast<size_t>(i)] = A(t - 1, i) + tb.t(i, j);
      A(t, j) = log_sum_exp(tmp) + e(t, j);
    }
  for (int k = 0; k < K; ++k) tmp[static_cast<size_t>(k)] = A(L - 1, k) + tb.en[static_cast<size_t>(k)];
  const double log_z = log_sum_exp(tmp);
  if (!unary) return log_z;

  std::vector<double> beta(static_cast<size_t>(L) * Ks);
  auto Bt = [&](Index t, int k) -> double& { return beta[static_cast<size_t>(t) * Ks + static_cast<size_t>(k)]; };
  for (int k = 0; k < K; ++k) Bt(L - 1, k) = tb.en[static_cast<size_t>(k)];
  for (Index t = L - 2; t >= 0; --t)
    for (int i = 0; i < K; ++i) {
      for (int j = 0; j < K; ++j) tmp[static_cast<size_t>(j)] = tb.t(i, j) + e(t + 1, j) + Bt(t + 1, j);
      Bt(t, i) = log_sum_exp(tmp);
    }
  unary->assign(static_cast<size_t>(L) * Ks, 0.0);
  for (Index t = 0; t < L; ++t)
    for (int k = 0; k < K; ++k)
      (*unary)[static_cast<size_t>(t) * Ks + static_cast<size_t>(k)] = std::exp(A(t, k) + Bt(t, k) - log_z);
  pair->assign(Ks * Ks, 0.0);
  for (Index t = 1; t < L; ++t)
    for (int i = 0; i < K; ++i)
      for (int j = 0; j < K; ++j)
        (*pair)[static_cast<size_t>(i * K + j)] += std::exp(A(t - 1, i) + tb.t(i, j) + e(t, j) + Bt(t, j) - log_z);
  return log_z;
}

const Mat* opt_val(Graph& g, Var v) { return v.valid() ? &g.value(v.id) : nullptr; }
bool wants(Graph& g, Var v) { return v.valid() && g.needs_grad(v.id); }

std::vector<Var> op_inputs(Var emissions, Var trans, Var start, Var end) {
  std::vector<Var> in = {emissions, trans};
  if (start.valid()) in.push_back(start);
  if (end.valid()) in.push_back(end);
  return in;
}

// grad(v) += scale * counts (K*K or K entries, row-major).
template <typename C>
void add_counts(Graph& g, Var v, const std::vector<C>& counts, Real scale) {
  if (!wants(g, v)) return;
  Mat& d = g.grad(v.id);
  for (Index k = 0; k < d.size(); ++k) d.data()[k] += static_cast<Real>(scale * counts[static_cast<size_t>(k)]);
}
}  // namespace


double path_score(const Mat& emis, const Mat& trans, const Mat* start, const Mat* end, const std::vector<int>& tags) {
  check_tables("path_score", emis.cols(), trans, start, end, nullptr);
  check_tags("path_score", tags, emis.rows(), emis.cols(), -1);
  return score_of(Rows{emis, 1, 0, emis.rows()}, make_tables(trans, start, end, nullptr), tags);
}

std::vector<int> viterbi(const Mat& emis, const Mat& trans, const Mat* start, const Mat* end,
                         const CrfConstraint* constraint, const std::vector<int>* gold, double cost) {
  check_tables("viterbi", emis.cols(), trans, start, end, constraint);
  if (gold) check_tags("viterbi", *gold, emis.rows(), emis.cols(), -1);
  TW_CHECK(std::isfinite(cost), "viterbi: cost ", cost, " is not finite");
  std::vector<int> path;
  const double best = best_path(Rows{emis, 1, 0, emis.rows()}, make_tables(trans, start, end, constraint), gold,
                                cost, path);
  TW_CHECK(best > kNegInf, "viterbi: no path of length ", emis.rows(), " is allowed by the constraint");
  return path;
}

double log_partition(const Mat& emis, const Mat& trans, const Mat* start, const Mat* end) {
  check_tables("log_partition", emis.cols(), trans, start, end, nullptr);
  return forward_backward(Rows{emis, 1, 0, emis.rows()}, make_tables(trans, start, end, nullptr), nullptr, nullptr);
}

Var crf_hinge_loss(Var emissions, const std::vector<Index>& lengths, Var trans, Var start, Var end,
                   const std::vector<std::vector<int>>& gold, Real eta, const CrfConstraint* constraint) {
  check_op("crf_hinge_loss", emissions, lengths, trans, start, end, gold, constraint);
  TW_CHECK(std::isfinite(eta) && eta >= 0, "crf_hinge_loss: margin eta ", eta, " must be finite and >= 0");
  Graph& g = *emissions.g;
  const Mat& E = emissions.val();
  const Tables plain = make_tables(trans.val(), opt_val(g, start), opt_val(g, end), nullptr);
  const Tables cons = constraint ? make_tables(trans.val(), opt_val(g, start), opt_val(g, end), constraint) : plain;
  const auto B = static_cast<Index>(lengths.size());
  std::vector<std::vector<int>> worst(static_cast<size_t>(B));   // y* per sentence, for backward
  std::vector<double> loss(static_cast<size_t>(B), 0.0);
#pragma omp parallel for schedule(dynamic) if (B > 1)
  for (Index b = 0; b < B; ++b) {
    const auto bs = static_cast<size_t>(b);
    const Rows e{E, B, b, lengths[bs]};
    const double aug = best_path(e, cons, &gold[bs], static_cast<double>(eta), worst[bs]);
    const double gold_score = score_of(e, plain, gold[bs]);
    if (aug <= gold_score) {   // the gold path wins by the margin (or ties): loss 0, no gradient
      worst[bs] = gold[bs];
    } else {                   // (a NaN score lands here and propagates to the loss)
      loss[bs] = aug - gold_score;
    }
  }
  double total = 0;
  for (double l : loss) total += l;
  Mat value(1, 1);
  value(0, 0) = static_cast<Real>(total);
  const int K = static_cast<int>(E.cols());
  return g.record("crf_hinge_loss", std::move(value), op_inputs(emissions, trans, start, end),
                  [emissions, trans, start, end, B, gold, worst = std::move(worst), K](Graph& g, NodeId self) {
    const Real gs = g.grad(self)(0, 0);
    const auto Ks = static_cast<size_t>(K);
    std::vector<int> dtr(Ks * Ks, 0), dst(Ks, 0), den(Ks, 0);   // counts along y* minus along the gold
    Mat* de = g.needs_grad(emissions.id) ? &g.grad(emissions.id) : nullptr;
    for (Index b = 0; b < B; ++b) {
      const auto& p = worst[static_cast<size_t>(b)];
      const auto& y = gold[static_cast<size_t>(b)];
      if (p == y) continue;
      for (size_t t = 0; t < p.size(); ++t) {
        if (de && p[t] != y[t]) {
          (*de)(static_cast<Index>(t) * B + b, p[t]) += gs;
          (*de)(static_cast<Index>(t) * B + b, y[t]) -= gs;
        }
        if (t > 0) {
          ++dtr[static_cast<size_t>(p[t - 1] * K + p[t])];
          --dtr[static_cast<size_t>(y[t - 1] * K + y[t])];
        }
      }
      ++dst[static_cast<size_t>(p.front())], --dst[static_cast<size_t>(y.front())];
      ++den[static_cast<size_t>(p.back())], --den[static_cast<size_t>(y.back())];
    }
    add_counts(g, trans, dtr, gs);
    add_counts(g, start, dst, gs);
    add_counts(g, end, den, gs);
  });
}

Var crf_nll(Var emissions, const std::vector<Index>& lengths, Var trans, Var start, Var end,
            const std::vector<std::vector<int>>& gold) {
  check_op("crf_nll", emissions, lengths, trans, start, end, gold, nullptr);
  Graph& g = *emissions.g;
  const Mat& E = emissions.val();
  const Tables tb = make_tables(trans.val(), opt_val(g, start), opt_val(g, end), nullptr);
  const auto B = static_cast<Index>(lengths.size());
  std::vector<double> loss(static_cast<size_t>(B), 0.0);
#pragma omp parallel for schedule(dynamic) if (B > 1)
  for (Index b = 0; b < B; ++b) {
    const Rows e{E, B, b, lengths[static_cast<size_t>(b)]};
    loss[static_cast<size_t>(b)] = forward_backward(e, tb, nullptr, nullptr) - score_of(e, tb, gold[static_cast<size_t>(b)]);
  }
  double total = 0;
  for (double l : loss) total += l;
  Mat value(1, 1);
  value(0, 0) = static_cast<Real>(total);
  return g.record("crf_nll", std::move(value), op_inputs(emissions, trans, start, end),
                  [emissions, trans, start, end, lengths, gold](Graph& g, NodeId self) {
    const Real gs = g.grad(self)(0, 0);
    const Mat& E = g.value(emissions.id);
    const Tables tb = make_tables(g.value(trans.id), opt_val(g, start), opt_val(g, end), nullptr);
    const auto B = static_cast<Index>(lengths.size());
    const int K = tb.K;
    const auto Ks = static_cast<size_t>(K);
    Mat* de = g.needs_grad(emissions.id) ? &g.grad(emissions.id) : nullptr;   // taken before the parallel loop
    std::vector<std::vector<double>> pair(static_cast<size_t>(B));
    std::vector<double> first(static_cast<size_t>(B) * Ks, 0.0), last(static_cast<size_t>(B) * Ks, 0.0);
#pragma omp parallel for schedule(dynamic) if (B > 1)
    for (Index b = 0; b < B; ++b) {   // each sentence writes only its own emission rows and slots
      const auto bs = static_cast<size_t>(b);
      const Rows e{E, B, b, lengths[bs]};
      if (e.len == 0) continue;
      std::vector<double> unary;
      forward_backward(e, tb, &unary, &pair[bs]);
      const auto& y = gold[bs];
      if (de)
        for (Index t = 0; t < e.len; ++t)
          for (int k = 0; k < K; ++k) {
            const double p = unary[static_cast<size_t>(t) * Ks + static_cast<size_t>(k)];
            (*de)(t * B + b, k) += static_cast<Real>(gs * (p - (y[static_cast<size_t>(t)] == k ? 1.0 : 0.0)));
          }
      for (size_t k = 0; k < Ks; ++k) {
        first[bs * Ks + k] = unary[k];
        last[bs * Ks + k] = unary[static_cast<size_t>(e.len - 1) * Ks + k];
      }
    }
    // Expected minus gold counts, summed in sentence order (the same for any thread count).
    std::vector<double> dtr(Ks * Ks, 0.0), dst(Ks, 0.0), den(Ks, 0.0);
    for (size_t b = 0; b < static_cast<size_t>(B); ++b) {
      const auto& y = gold[b];
      if (y.empty()) continue;
      for (size_t k = 0; k < Ks * Ks; ++k) dtr[k] += pair[b][k];
      for (size_t t = 1; t < y.size(); ++t) dtr[static_cast<size_t>(y[t - 1] * K + y[t])] -= 1;
      for (size_t k = 0; k < Ks; ++k) dst[k] += first[b * Ks + k], den[k] += last[b * Ks + k];
      dst[static_cast<size_t>(y.front())] -= 1;
      den[static_cast<size_t>(y.back())] -= 1;
    }
    add_counts(g, trans, dtr, gs);
    add_counts(g, start, dst, gs);
    add_counts(g, end, den, gs);
  });
}

std::vector<std::vector<int>> crf_decode(const Mat& emissions, const std::vector<Index>& lengths, const Mat& trans,
                                         const Mat* start, const Mat* end, const CrfConstraint* constraint) {
  check_batch("crf_decode", emissions, lengths);
  check_tables("crf_decode", emissions.cols(), trans, start, end, constraint);
  const Tables tb = make_tables(trans, start, end, constraint);
  const auto B = static_cast<Index>(lengths.size());
  std::vector<std::vector<int>> paths(static_cast<size_t>(B));
  std::vector<double> best(static_cast<size_t>(B), 0.0);
#pragma omp parallel for schedule(dynamic) if (B > 1)
  for (Index b = 0; b < B; ++b)
    best[static_cast<size_t>(b)] = best_path(Rows{emissions, B, b, lengths[static_cast<size_t>(b)]}, tb, nullptr, 0,
                                             paths[static_cast<size_t>(b)]);
  for (Index b = 0; b < B; ++b)
    TW_CHECK(best[static_cast<size_t>(b)] > kNegInf, "crf_decode: no path of length ", lengths[static_cast<size_t>(b)],
             " for sentence ", b, " is allowed by the constraint");
  return paths;
}

}  // namespace twin
