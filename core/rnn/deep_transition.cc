#include "rnn/deep_transition.h"

#include "rnn/cell_factory.h"
#include "rnn/lgru.h"
#include "rnn/tgru.h"

namespace twin {

DeepTransitionCell::DeepTransitionCell(std::string name, std::unique_ptr<Cell> first,
                                       std::vector<std::unique_ptr<Cell>> transitions)
    : name_(std::move(name)), first_(std::move(first)), transitions_(std::move(transitions)) {
  TW_CHECK(first_ != nullptr, "deep transition '", name_, "': no first cell");
  for (const auto& t : transitions_) {
    TW_CHECK(t && t->k() == 0, "deep transition '", name_, "': transition cells must read no input (k() == 0)");
    TW_CHECK(t->hidden_dim() == first_->hidden_dim() && t->has_memory() == first_->has_memory(),
             "deep transition '", name_, "': transition '", t->name(), "' has hidden ", t->hidden_dim(),
             " but the first cell '", first_->name(), "' has ", first_->hidden_dim(), " (and both must agree on memory)");
  }
}

CellState DeepTransitionCell::step(Var xp_t, const CellState& prev, GateRecord* rec) const {
  CellState s = first_->step(xp_t, prev, rec);
  GateRecord sub;
  for (size_t j = 0; j < transitions_.size(); ++j) {
    sub.values.clear();
    s = transitions_[j]->step(Var{}, s, rec ? &sub : nullptr);
    if (rec)
      for (auto& [gate, v] : sub.values) rec->add("t" + std::to_string(j + 1) + "/" + gate, v);
  }
  return s;
}

CellInfo DeepTransitionCell::info() const {
  CellInfo sum = first_->info();
  for (const auto& t : transitions_) {
    sum.weight_matrices += t->info().weight_matrices;
    sum.matrix_transformations += t->info().matrix_transformations;
  }
  return sum;
}

Index DeepTransitionCell::expected_params() const {
  Index n = first_->expected_params();
  for (const auto& t : transitions_) n += t->expected_params();
  return n;
}

std::unique_ptr<Cell> make_dt_cell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope) {
  check_cell_config(cfg, input_dim, "dt", kDtOptions);
  TW_CHECK(cfg.transitions >= 0, "cell 'dt': transitions must be >= 0, got ", cfg.transitions);
  CellConfig sub = cfg;
  sub.transitions = 1;   // the sub-cells have no such option
  const std::string dt_scope = join_name(scope, "dt");
  sub.type = "lgru";
  auto first = std::make_unique<LgruCell>(sub, input_dim, store, dt_scope);
  std::vector<std::unique_ptr<Cell>> transitions;
  sub.type = "tgru";
  for (int j = 1; j <= cfg.transitions; ++j)
    transitions.push_back(
        std::make_unique<TgruCell>(sub, cfg.hidden, store, join_name(dt_scope, "t" + std::to_string(j))));
  return std::make_unique<DeepTransitionCell>("dt", std::move(first), std::move(transitions));
}

std::unique_ptr<Cell> make_deep_transition(const CellConfig& first, int input_dim, int transitions, ParamStore& store,
                                           const std::string& scope) {
  TW_CHECK(transitions >= 0, "deep transition '", scope, "': transitions must be >= 0, got ", transitions);
  std::unique_ptr<Cell> head = make_cell(first, input_dim, store, scope);
  TW_CHECK(!head->has_memory(), "cell '", first.type, "' has a memory cell c and the T-GRU transitions after it have "
           "none (HINT: a deep transition starts with a cell without memory: lgru, gru, atr, ...)");
  CellConfig sub;   // the T-GRU's options: the every-cell ones of `first` that a T-GRU has
  sub.type = "tgru";
  sub.hidden = first.hidden;
  sub.init = first.init;
  sub.init_scale = first.init_scale;
  sub.bias_init = first.bias_init;
  if (first.bias == CellBias::kNone) sub.bias = CellBias::kNone;
  std::vector<std::unique_ptr<Cell>> steps;
  for (int j = 1; j <= transitions; ++j)
    steps.push_back(std::make_unique<TgruCell>(sub, first.hidden, store, join_name(scope, "t" + std::to_string(j))));
  return std::make_unique<DeepTransitionCell>("dt:" + first.type, std::move(head), std::move(steps));
}

}  // namespace twin
