// Multi-layer perceptron: a stack of Linear layers with an activation between them.
//   h_0 = x;   h_l = act(drop(h_{l-1}) W_l + b_l)  for hidden layers;   y = drop(h_{L-1}) W_L + b_L
// The last layer is linear (logits) unless `activate_output` is set. Dropout (inverted, p) is applied to
// the input of every layer after the first, i.e. after each hidden activation, and only in kTrain graphs.
// Used by the SNLI classifier and the NMT deep output. Parameters: `scope/l0/W`, `scope/l0/b`, `scope/l1/W`, ...
#pragma once
#include <string>
#include <vector>

#include "base/rng.h"
#include "nn/linear.h"

namespace twin {

enum class Activation { kTanh, kRelu };
Activation parse_activation(const std::string& name);   // "tanh" | "relu"; anything else throws
Var activate(Var x, Activation a);

struct MlpConfig {
  std::vector<Index> dims;        // {in, hidden..., out}: at least two entries
  Activation activation = Activation::kTanh;
  Real dropout = 0;               // p in [0, 1)
  bool activate_output = false;   // also apply the activation after the last layer
  bool bias = true;
};

class Mlp {
 public:
  Mlp() = default;
  Mlp(ParamStore& store, const std::string& scope, const MlpConfig& cfg, const Init& init);

  Var apply(Var x, Rng& rng) const;   // [N, dims.front()] -> [N, dims.back()]
  Var apply(Var x) const;             // only when no dropout is needed (p == 0 or a kInfer graph)

  const std::vector<Linear>& layers() const { return layers_; }
  Index in_dim() const { return layers_.empty() ? 0 : layers_.front().in_dim(); }
  Index out_dim() const { return layers_.empty() ? 0 : layers_.back().out_dim(); }

 private:
  Var run(Var x, Rng* rng) const;

  std::vector<Linear> layers_;
  Activation act_ = Activation::kTanh;
  Real dropout_ = 0;
  bool activate_output_ = false;
};

}  // namespace twin
