#include "rnn/cell_util.h"

#include <algorithm>

namespace twin {

namespace {
bool allows(std::initializer_list<CellOpt> allowed, CellOpt o) {
  return std::find(allowed.begin(), allowed.end(), o) != allowed.end();
}
}  // namespace

void check_cell_config(const CellConfig& cfg, int input_dim, const std::string& cell,
                       std::initializer_list<CellOpt> allowed) {
  TW_CHECK(cfg.hidden > 0, "cell '", cell, "': hidden must be > 0, got ", cfg.hidden);
  TW_CHECK(input_dim > 0, "cell '", cell, "': input dimension must be > 0, got ", input_dim);
  TW_CHECK(cfg.init_scale > 0 || cfg.init == WeightInit::kGlorot || cfg.init == WeightInit::kOrthogonal, "cell '", cell,
           "': init_scale must be > 0, got ", cfg.init_scale);
  auto reject = [&](CellOpt o, bool is_default, const std::string& what) {
    TW_CHECK(is_default || allows(allowed, o), "cell '", cell, "' has no option ", what,
             " (HINT: leave it at its default for this cell type)");
  };
  reject(CellOpt::kOutput, cfg.output == CellOutput::kDefault,
         "output='" + std::string(name_of(kCellOutputNames, cfg.output)) + "'");
  if (!allows(allowed, CellOpt::kAtrBias))
    reject(CellOpt::kBiasNone, cfg.bias == CellBias::kDefault,
           "bias='" + std::string(name_of(kCellBiasNames, cfg.bias)) + "'");
  reject(CellOpt::kInputTanh, !cfg.input_tanh, "input_tanh=true");
  reject(CellOpt::kCoupled, !cfg.coupled, "coupled=true");
  reject(CellOpt::kLayerNorm, !cfg.layer_norm, "layer_norm=true");
  TW_CHECK(cfg.bias_init == BiasInit::kZero || cfg.bias != CellBias::kNone, "cell '", cell,
           "': bias_init='uniform' needs biases (bias='none' was given)");
  TW_CHECK(cfg.bias_init == BiasInit::kZero || !cfg.layer_norm, "cell '", cell,
           "': bias_init='uniform' and layer_norm exclude each other (the layer norms' biases start at 0)");
  reject(CellOpt::kForgetBias, cfg.forget_bias == 0.0, "forget_bias=" + std::to_string(cfg.forget_bias));
  reject(CellOpt::kResetAfter, cfg.gru_reset_after, "gru_reset_after=false");
  reject(CellOpt::kTransitions, cfg.transitions == 1, "transitions=" + std::to_string(cfg.transitions));
  reject(CellOpt::kContent, cfg.content == RanContent::kDefault,
         "content='" + std::string(name_of(kRanContentNames, cfg.content)) + "'");
}

Act parse_output(const CellConfig& cfg, Act dflt) {
  switch (cfg.output) {
    case CellOutput::kDefault: return dflt;
    case CellOutput::kIdentity: return Act::kIdentity;
    case CellOutput::kTanh: return Act::kTanh;
  }
  return dflt;
}

bool parse_has_bias(const CellConfig& cfg) {
  if (cfg.bias == CellBias::kDefault) return true;
  if (cfg.bias == CellBias::kNone) return false;
  TW_FAIL("cell '", cfg.type, "': bias must be 'default' or 'none', got '", name_of(kCellBiasNames, cfg.bias),
          "' (none/input/recurrent/both are ATR's)");
}

Init weight_init(const CellConfig& cfg) {
  const Real s = static_cast<Real>(cfg.init_scale);
  switch (cfg.init) {
    case WeightInit::kUniform: return init::uniform(s);
    case WeightInit::kNormal: return init::normal(s);
    case WeightInit::kGlorot: return init::glorot_uniform();
    case WeightInit::kOrthogonal: return init::orthogonal();
  }
  return init::uniform(s);
}

Init bias_init(const CellConfig& cfg) {
  if (cfg.bias_init == BiasInit::kZero) return init::constant(0);
  return init::uniform(static_cast<Real>(cfg.init_scale));
}

const char* act_name(Act a) { return a == Act::kTanh ? "tanh" : "identity"; }

Var project(Var x, Param& w, Param* b) {
  Graph& g = *x.g;
  if (!b) return matmul(x, g.param(w));
  const Index nb = b->value.cols(), n = w.value.cols();
  TW_DCHECK(nb <= n, "bias wider than its projection");
  if (nb == n) return affine(x, g.param(w), g.param(*b));
  Var m = matmul(x, g.param(w));                                    // [N, n]
  return concat_cols({add_row(slice_cols(m, 0, nb), g.param(*b)), slice_cols(m, nb, n - nb)});
}

}  // namespace twin
