#include "nn/linear.h"

#include "ops/linalg.h"

namespace twin {

Linear::Linear(ParamStore& store, const std::string& scope, Index in, Index out, const Init& init, bool bias,
               const Init& bias_init) {
  TW_CHECK(in > 0 && out > 0, "Linear '", scope, "': dimensions must be positive, got in=", in, " out=", out);
  w_ = &store.add(join_name(scope, "W"), in, out, init);
  if (bias) b_ = &store.add(join_name(scope, "b"), 1, out, bias_init);
}

Param& Linear::weight() const {
  TW_CHECK(w_ != nullptr, "Linear: used before construction");
  return *w_;
}

Var Linear::apply(Var x) const {
  Param& w = weight();
  TW_CHECK(x.cols() == w.value.rows(), "Linear '", w.name, "': input ", shape_str(x), " needs ", w.value.rows(),
           " columns");
  Graph& g = *x.g;
  return b_ ? affine(x, g.param(w), g.param(*b_)) : matmul(x, g.param(w));
}

}  // namespace twin
