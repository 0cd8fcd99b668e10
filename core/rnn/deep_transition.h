// Deep transition (DTMT, Meng & Zhang AAAI 2019; Marian's StackedCell): several cells applied in turn
// inside ONE time step. The first cell reads the input; each transition cell reads no input (k() == 0)
// and only refines the state:
//   s_{t,0} = first(x_t, s_{t-1, K})        s_{t,j} = transition_j(s_{t,j-1}),  j = 1..K
// The registered cell "dt" is DTMT's encoder/decoder transition: one L-GRU, then cfg.transitions T-GRUs.
// project_inputs delegates to the first cell (its one input GEMM is all there is).
// Parameters: "<scope>/dt/lgru/..." and "<scope>/dt/t<j>/tgru/..." for j = 1..K.
//   expected_params = first + Σ_j transition_j = (5·I·H + 4·H² + 4·H·[bias]) + K·(3·H² + 3·H·[bias])
// Table 1 style counts: the sums (dt: 9 + 3K). Gates: the first cell's under their own names, transition
// j's prefixed "t<j>/" (e.g. "t1/z").
#pragma once
#include <memory>
#include <vector>

#include "rnn/cell_util.h"

namespace twin {

class DeepTransitionCell final : public Cell {
 public:
  // Every cell must have the same hidden size and memory kind; every transition must have k() == 0.
  DeepTransitionCell(std::string name, std::unique_ptr<Cell> first, std::vector<std::unique_ptr<Cell>> transitions);
  const std::string& name() const override { return name_; }
  int input_dim() const override { return first_->input_dim(); }
  int hidden_dim() const override { return first_->hidden_dim(); }
  int k() const override { return first_->k(); }
  bool has_memory() const override { return first_->has_memory(); }
  Var project_inputs(Var x) const override { return first_->project_inputs(x); }
  CellState step(Var xp_t, const CellState& prev, GateRecord* rec = nullptr) const override;
  CellInfo info() const override;
  Index expected_params() const override;
  int depth() const { return 1 + static_cast<int>(transitions_.size()); }

 private:
  std::string name_;
  std::unique_ptr<Cell> first_;
  std::vector<std::unique_ptr<Cell>> transitions_;
};

// The registered "dt" cell: L-GRU + cfg.transitions T-GRUs, its options and its traits (the L-GRU's and the
// T-GRU's: neither is twin-gated or has a memory).
std::unique_ptr<Cell> make_dt_cell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope);
inline constexpr CellOptSet kDtOptions = kEveryCellOptions | CellOptSet{CellOpt::kTransitions};
inline CellTraits dt_traits(const CellConfig&) { return {}; }

// A deep transition with any registered first cell (first.type: L-GRU in DTMT, GRU for DTMT without the linear
// transformation, ATR, ...), then `transitions` T-GRUs that take first's weight initialisation and, where it is
// "none", its bias option. Parameters: "<scope>/<first's>/..." and "<scope>/t<j>/tgru/..." (DTMT's encoder
// and decoder transitions, tasks/nmt/model/dtmt.h). The first cell must have no memory (the T-GRUs have none).
std::unique_ptr<Cell> make_deep_transition(const CellConfig& first, int input_dim, int transitions, ParamStore& store,
                                           const std::string& scope);

}  // namespace twin
