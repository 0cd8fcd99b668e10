// Optimisers: one update rule per file (sgd.cc, adam.cc, adagrad.cc, adadelta.cc) behind one interface.
// Per-parameter state ("slots": moments, accumulators) is keyed by parameter NAME, so a checkpoint written by
// one process loads into another whose ParamStore was built the same way (DESIGN §3.4).
//
// Semantics shared by every rule:
// - Only trainable params are updated; frozen ones (trainable=false) are skipped and get no state.
// - weight_decay is classic L2 folded into the gradient, g = grad + wd * value (not AdamW's decoupled decay),
//   applied after clipping because the trainer clips p.grad before calling step().
// - Gradients are read, never modified or zeroed (the trainer calls ParamStore::zero_grad()).
// - A param with max_abs > 0 is projected back into the box [-max_abs, max_abs] right after its update (projected
//   gradient descent; IndRNN's recurrent-weight bound, Li et al. 2018).
// - Row-sparse params (rows marked touched, not all_touched; untouched rows have zero grad by ParamStore's
//   contract): a rule updates only the touched rows when that is EXACTLY the dense update, i.e. SGD without
//   momentum and Adagrad, both only when weight_decay == 0. Momentum, weight decay, Adam and Adadelta do the
//   dense update (exact, not lazy): moments of untouched rows keep decaying and Adam keeps moving those rows,
//   as PyTorch does with dense gradients. Lazy Adam would be faster for big vocabularies but changes the maths.
//
// Checkpoint state (state()/load_state()): entries "<rule>/<slot>/<param name>" in slot-creation order (the
// order of the store's trainable params), each the shape of its param, preceded by "<rule>/step", a 1x2 Mat
// [step / 2^20, step % 2^20] so the counter survives float32 storage exactly up to 2^44 steps.
#pragma once
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/real.h"
#include "graph/param.h"
#include "optim/optim_config.h"

namespace twin {

using NamedMats = std::vector<std::pair<std::string, Mat>>;

class Optimizer {
 public:
  explicit Optimizer(const OptimConfig& cfg) : cfg_(cfg) {}
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  virtual std::string name() const = 0;  // "sgd", "adam", ...

  // One update of every trainable param from its current grad with learning rate lr (after the schedule).
  virtual void step(ParamStore& store, Real lr);

  // Creates the initial state for every trainable param (step() does it lazily). Required before load_state
  // so that the loaded entries can be checked against the model's params.
  void init(const ParamStore& store);

  long step_count() const { return steps_; }
  const OptimConfig& config() const { return cfg_; }

  NamedMats state() const;
  // Replaces the whole state. The entries must be exactly those state() would return (same names and shapes,
  // any order); otherwise throws naming the first missing, unexpected or mis-shaped entry and changes nothing.
  void load_state(const NamedMats& entries);

 protected:
  // The rule. `g` is the weight-decayed gradient; `sparse` is true when only the rows p.row_touched() have a
  // nonzero g (rules use it only where a touched-rows update equals the dense one). steps_ already counts
  // this step (1 on the first call).
  virtual void update(Param& p, const Mat& g, bool sparse, std::vector<Mat>& slots, Real lr) = 0;
  virtual std::vector<std::string> slot_names() const = 0;  // e.g. {"m", "v"}; empty for plain SGD
  virtual Real slot_init() const { return 0; }              // initial value of every slot entry

  OptimConfig cfg_;
  long steps_ = 0;

 private:
  struct Slots {
    std::string param;
    std::vector<Mat> mats;  // one per slot_names(), shaped like the param
  };
  std::vector<Mat>& slots_for(const Param& p);
  std::string entry_name(const std::string& slot, const std::string& param) const;

  std::vector<Slots> slots_;                          // creation order
  std::unordered_map<std::string, size_t> slot_index_;  // param name -> index into slots_
  bool initialised_ = false;
  Mat scratch_;  // weight-decayed gradient
};

// The bounds and rules of optim_table() (optim_config.h) on a struct built in code: throws twin::Error naming
// the field (optim.beta1 = 1.5 is out of range [0, 1]).
void check_optim(const OptimConfig& cfg);
// Validates cfg, then builds the rule it names.
std::unique_ptr<Optimizer> make_optimizer(const OptimConfig& cfg);

// One factory per rule file (used by make_optimizer; cfg is already validated).
std::unique_ptr<Optimizer> make_sgd(const OptimConfig& cfg);
std::unique_ptr<Optimizer> make_adam(const OptimConfig& cfg);
std::unique_ptr<Optimizer> make_adagrad(const OptimConfig& cfg);
std::unique_ptr<Optimizer> make_adadelta(const OptimConfig& cfg);

}  // namespace twin
