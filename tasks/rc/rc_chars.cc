#include "rc_chars.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

#include "ops/ops.h"

namespace twin::rc {

namespace {

// The state rows [0, n) of s (s itself when it has n rows).
CellState top_rows(const CellState& s, Index n) {
  if (s.h.rows() == n) return s;
  return {slice_rows(s.h, 0, n), s.c.valid() ? slice_rows(s.c, 0, n) : Var{}};
}

// s with `extra` zero rows appended (the backward direction's words that start at this step).
CellState with_zero_rows(const Cell& cell, const CellState& s, Index extra) {
  Graph& g = *s.h.g;
  const CellState z = cell.zero_state(g, extra);
  return {stack_rows({s.h, z.h}), s.c.valid() ? stack_rows({s.c, z.c}) : Var{}};
}

}  // namespace

Var packed_char_states(Graph& g, const Embedding& chars, const Cell& fwd, const Cell& bwd, const std::vector<int>& ids,
                       Index words, Index word_len, Real p, Rng& rng) {
  const Index N = words, L = word_len, C = fwd.hidden_dim();
  TW_CHECK(static_cast<Index>(ids.size()) == N * L, "packed_char_states: ", ids.size(), " ids for ", N, " words of ",
           L, " characters");
  TW_CHECK(bwd.hidden_dim() == C, "packed_char_states: the two directions' hidden sizes differ");
  std::vector<std::vector<int>> spelt(static_cast<size_t>(N));   // each word's non-padding ids, in order
  for (Index n = 0; n < N; ++n)
    for (Index c = 0; c < L; ++c) {
      const int id = ids[static_cast<size_t>(n * L + c)];
      TW_CHECK(id >= 0 && id < chars.vocab_size(), "RcBatch: character id ", id, " outside [0, ", chars.vocab_size(),
               ")");
      if (id != 0) spelt[static_cast<size_t>(n)].push_back(id);
    }
  const bool drop = p > 0 && g.training();
  const Mat mask = drop ? dropout_mask(rng, N, chars.dim(), p) : Mat();   // seq_dropout's draw: row n for word n
  std::vector<Index> order(static_cast<size_t>(N));                      // words by length, longest first
  std::iota(order.begin(), order.end(), Index{0});
  std::stable_sort(order.begin(), order.end(), [&](Index a, Index b) {
    return spelt[static_cast<size_t>(a)].size() > spelt[static_cast<size_t>(b)].size();
  });
  const Index longest = N ? static_cast<Index>(spelt[static_cast<size_t>(order[0])].size()) : 0;
  std::vector<Index> active(static_cast<size_t>(longest + 1), 0), offset(static_cast<size_t>(longest + 1), 0);
  for (Index t = 0; t < longest; ++t)   // n_t, and where step t's rows start in the packed input
    for (Index i : order) {
      if (static_cast<Index>(spelt[static_cast<size_t>(i)].size()) <= t) break;
      ++active[static_cast<size_t>(t)];
    }
  for (Index t = 1; t <= longest; ++t)
    offset[static_cast<size_t>(t)] = offset[static_cast<size_t>(t - 1)] + active[static_cast<size_t>(t - 1)];
  const Index real = active.empty() ? 0 : active[0];
  Var out;
  if (longest > 0) {
    Ids packed(static_cast<size_t>(offset[static_cast<size_t>(longest)]));
    Mat keep = drop ? Mat(static_cast<Index>(packed.size()), chars.dim()) : Mat();
    for (Index t = 0; t < longest; ++t)
      for (Index i = 0; i < active[static_cast<size_t>(t)]; ++i) {
        const Index n = order[static_cast<size_t>(i)], r = offset[static_cast<size_t>(t)] + i;
        packed[static_cast<size_t>(r)] = spelt[static_cast<size_t>(n)][static_cast<size_t>(t)];
        if (drop) keep.row(r) = mask.row(n);
      }
    Var x = chars.apply(g, packed);                                   // [Σ n_t, c]
    if (drop) x = x * g.constant(std::move(keep));
    auto step_rows = [&](Var xp, Index t) {   // step t's rows of a projected input (invalid: k = 0)
      return xp.valid() ? slice_rows(xp, offset[static_cast<size_t>(t)], active[static_cast<size_t>(t)]) : Var{};
    };
    // Forward: the finished words' rows leave the state; collected from the longest words down.
    Var xf = fwd.k() > 0 ? fwd.project_inputs(x) : Var{};
    CellState s = fwd.zero_state(g, real);
    std::vector<Var> done;   // pieces of the final states, the last step's first
    for (Index t = 0; t < longest; ++t) {
      const Index n = active[static_cast<size_t>(t)], next = active[static_cast<size_t>(t + 1)];
      s = fwd.step(step_rows(xf, t), top_rows(s, n));
      if (next < n) done.push_back(slice_rows(s.h, next, n - next));
    }
    std::reverse(done.begin(), done.end());
    Var h_fwd = done.size() == 1 ? done[0] : stack_rows(done);          // [n_0, C], sorted order
    // Backward: from the last character; the words that start at step t join with zero states.
    Var xb = bwd.k() > 0 ? bwd.project_inputs(x) : Var{};
    CellState r;
    for (Index t = longest - 1; t >= 0; --t) {
      const Index n = active[static_cast<size_t>(t)], had = active[static_cast<size_t>(t + 1)];
      r = had == 0 ? bwd.zero_state(g, n) : n > had ? with_zero_rows(bwd, r, n - had) : r;
      r = bwd.step(step_rows(xb, t), r);
    }
    out = concat_cols({h_fwd, r.h});                                    // [n_0, 2C], sorted order
  }
  // Back to word order; a word with no characters takes the appended zero row.
  Var zero = g.constant(Mat::Zero(1, 2 * C));
  Var table = out.valid() ? stack_rows({out, zero}) : zero;
  Ids rows(static_cast<size_t>(N), static_cast<std::int32_t>(real));
  for (Index i = 0; i < real; ++i)
    rows[static_cast<size_t>(order[static_cast<size_t>(i)])] = static_cast<std::int32_t>(i);
  return select_rows(table, rows);                                      // ch [N, 2C]
}

}  // namespace twin::rc
