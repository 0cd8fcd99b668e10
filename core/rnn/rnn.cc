#include "rnn/rnn.h"

#include "ops/ops.h"

namespace twin {

CellState Cell::zero_state(Graph& g, Index batch) const {
  CellState s;
  s.h = g.constant(Mat::Zero(batch, hidden_dim()));
  if (has_memory()) s.c = g.constant(Mat::Zero(batch, hidden_dim()));
  return s;
}

SequenceRun Cell::run_sequence(Var, const Mat&, Index, Dir, const CellState&,
                               std::map<std::string, std::vector<Mat>>*) const {
  TW_FAIL("cell '", name(), "' steps through time (run_rnn calls step()); it has no whole-sequence run");
}

SeqOut run_rnn(const Cell& cell, Var x, const Mat& mask, Index batch, Dir dir, CellState state, bool record_gates) {
  TW_CHECK(batch > 0 && x.rows() % batch == 0, "run_rnn: input ", shape_str(x), " is not [T*B, I] with B=", batch);
  TW_CHECK(x.cols() == cell.input_dim(), "run_rnn: input width ", x.cols(), " but cell '", cell.name(),
           "' expects ", cell.input_dim());
  TW_CHECK(mask.size() == 0 || (mask.rows() == x.rows() && mask.cols() == 1), "run_rnn: mask ", shape_str(mask),
           " for input ", shape_str(x));
  Graph& g = *x.g;
  const Index steps = x.rows() / batch;
  if (!state.h.valid()) state = cell.zero_state(g, batch);
  TW_CHECK(state.h.rows() == batch && state.h.cols() == cell.hidden_dim(), "run_rnn: initial state ",
           shape_str(state.h), " for batch ", batch, " and hidden ", cell.hidden_dim());
  TW_CHECK(!cell.has_memory() || state.c.valid(), "run_rnn: cell '", cell.name(), "' needs an initial memory c");

  SeqOut out;
  if (std::optional<SequenceRun> run = cell.run_layer(x, mask, batch, dir, state, record_gates)) {
    out.h_all = run->h_all;
    out.last = run->last;
    return out;
  }
  const Index kh = static_cast<Index>(cell.k()) * cell.hidden_dim();
  Var xp = kh > 0 ? cell.project_inputs(x) : Var{};   // the only input-side GEMM
  if (cell.runs_whole_sequence()) {
    SequenceRun run = cell.run_sequence(xp, mask, batch, dir, state, record_gates ? &out.gates : nullptr);
    out.h_all = run.h_all;
    out.last = run.last;
    return out;
  }
  std::vector<Var> hs(static_cast<size_t>(steps));
  GateRecord rec;
  for (Index s = 0; s < steps; ++s) {
    const Index t = dir == Dir::kForward ? s : steps - 1 - s;
    Var xp_t = kh > 0 ? slice_rows(xp, t * batch, batch) : Var{};
    rec.values.clear();
    CellState next = cell.step(xp_t, state, record_gates ? &rec : nullptr);
    if (mask.size()) {
      const Mat m_t = mask.middleRows(t * batch, batch);
      if ((m_t.array() != 1).any()) {   // skip the carry when every sequence is still running
        Var m = g.constant(m_t);
        next.h = mask_carry(next.h, state.h, m);
        if (cell.has_memory()) next.c = mask_carry(next.c, state.c, m);
      }
    }
    state = next;
    hs[static_cast<size_t>(t)] = state.h;
    for (auto& [name, v] : rec.values) out.gates[name].push_back(std::move(v));
  }
  if (record_gates && dir == Dir::kBackward)
    for (auto& [name, seq] : out.gates) std::reverse(seq.begin(), seq.end());
  out.h_all = stack_rows(hs);
  out.last = state;
  return out;
}

}  // namespace twin
