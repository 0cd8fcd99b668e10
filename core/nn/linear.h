// Fully connected layer: y = x W + b,  x:[N, in], W:[in, out], b:[1, out] (optional).
// Parameters are `scope/W` and `scope/b`. The module holds Param handles only; nothing per graph.
#pragma once
#include <string>

#include "graph/graph.h"
#include "graph/init.h"

namespace twin {

class Linear {
 public:
  Linear() = default;
  // The bias starts at zero unless `bias_init` says otherwise (the papers' code zero-initialises biases).
  Linear(ParamStore& store, const std::string& scope, Index in, Index out, const Init& init, bool bias = true,
         const Init& bias_init = init::constant(0));

  Var apply(Var x) const;   // [N, in] -> [N, out]

  Index in_dim() const { return w_ ? w_->value.rows() : 0; }
  Index out_dim() const { return w_ ? w_->value.cols() : 0; }
  bool has_bias() const { return b_ != nullptr; }
  Param& weight() const;
  Param* bias() const { return b_; }   // nullptr without bias

 private:
  Param* w_ = nullptr;
  Param* b_ = nullptr;
};

}  // namespace twin
