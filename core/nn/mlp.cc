#include "nn/mlp.h"

#include "ops/activations.h"
#include "ops/dropout.h"

namespace twin {

Activation parse_activation(const std::string& name) {
  if (name == "tanh") return Activation::kTanh;
  if (name == "relu") return Activation::kRelu;
  TW_FAIL("unknown activation '", name, "'; expected one of: tanh, relu");
}


Var activate(Var x, Activation a) { return a == Activation::kTanh ? tanh(x) : relu(x); }

Mlp::Mlp(ParamStore& store, const std::string& scope, const MlpConfig& cfg, const Init& init)
    : act_(cfg.activation), dropout_(cfg.dropout), activate_output_(cfg.activate_output) {
  TW_CHECK(cfg.dims.size() >= 2, "Mlp '", scope, "': dims needs at least {in, out}, got ", cfg.dims.size(),
           " entries");
  TW_CHECK(cfg.dropout >= 0 && cfg.dropout < 1, "Mlp '", scope, "': dropout must be in [0, 1), got ", cfg.dropout);
  for (size_t l = 0; l + 1 < cfg.dims.size(); ++l)
    layers_.emplace_back(store, join_name(scope, "l" + std::to_string(l)), cfg.dims[l], cfg.dims[l + 1], init,
                         cfg.bias);
}

Var Mlp::run(Var x, Rng* rng) const {
  TW_CHECK(!layers_.empty(), "Mlp: used before construction");
  Var h = x;
  for (size_t l = 0; l < layers_.size(); ++l) {
    if (l > 0 && dropout_ > 0 && x.g->training()) {
      TW_CHECK(rng != nullptr, "Mlp: dropout ", dropout_, " in a training graph needs an Rng (use apply(x, rng))");
      h = dropout(h, dropout_, *rng);
    }
    h = layers_[l].apply(h);                                    // [N, dims[l+1]]
    if (l + 1 < layers_.size() || activate_output_) h = activate(h, act_);
  }
  return h;
}

Var Mlp::apply(Var x, Rng& rng) const { return run(x, &rng); }
Var Mlp::apply(Var x) const { return run(x, nullptr); }

}  // namespace twin
