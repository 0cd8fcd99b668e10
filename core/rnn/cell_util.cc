#include "rnn/cell_util.h"

namespace twin {

void check_cell_config(const CellConfig& cfg, int input_dim, const std::string& cell, CellOptSet allowed) {
  TW_CHECK(cfg.hidden > 0, "cell '", cell, "': hidden must be > 0, got ", cfg.hidden);
  TW_CHECK(input_dim > 0, "cell '", cell, "': input dimension must be > 0, got ", input_dim);
  TW_CHECK(cfg.init_scale > 0 || cfg.init == WeightInit::kGlorot || cfg.init == WeightInit::kOrthogonal, "cell '", cell,
           "': init_scale must be > 0, got ", cfg.init_scale);
  // An option the cell does not read is an error, never silently ignored; at its default it says nothing.
  for (CellOpt o : kAllCellOpts)
    TW_CHECK(allowed.has(o) || cell_opt_is_default(cfg, o), "cell '", cell, "' has no option ", cell_opt_text(cfg, o),
             " (HINT: leave it at its default for this cell type)");
  TW_CHECK(cfg.bias_init == BiasInit::kZero || cfg.bias != CellBias::kNone, "cell '", cell,
           "': bias_init='uniform' needs biases (bias='none' was given)");
  TW_CHECK(cfg.bias_init == BiasInit::kZero || !cfg.layer_norm, "cell '", cell,
           "': bias_init='uniform' and layer_norm exclude each other (the layer norms' biases start at 0)");
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

Var project(Var x, Param& w, Param* b) {
  Graph& g = *x.g;
  if (!b) return matmul(x, g.param(w));
  const Index nb = b->value.cols(), n = w.value.cols();
  TW_DCHECK(nb <= n, "bias wider than its projection");
  if (nb == n) return affine(x, g.param(w), g.param(*b));
  Var m = matmul(x, g.param(w));                                    // [N, n]
  return concat_cols({add_row(slice_cols(m, 0, nb), g.param(*b)), slice_cols(m, nb, n - nb)});
}

void record_gates(GateRecord* rec, std::initializer_list<std::pair<const char*, Var>> gates) {
  if (!rec) return;
  for (const auto& [name, v] : gates) rec->add(name, v.val());
}

void record_blocks(GateRecord& rec, const Mat& m, Index h, std::initializer_list<const char*> names) {
  TW_DCHECK(m.cols() == h * static_cast<Index>(names.size()), "record_blocks: width is not names·h");
  Index j = 0;
  for (const char* name : names) rec.add(name, m.middleCols(h * j++, h));
}

Var CellBase::project_inputs(Var x) const {
  if (!ln_g_) return project(x, *w_, b_);
  Graph& g = *x.g;
  return layer_norm(matmul(x, g.param(*w_)), g.param(*ln_g_), g.param(*ln_b_));
}

void CellBase::add_normed_projection(const CellConfig& cfg, ParamStore& store, const std::string& scope, Index k) {
  const bool has_bias = parse_has_bias(cfg);   // first: it refuses ATR's bias values before anything is added
  w_ = &add_param(store, scope, "W", I(), k * H(), weight_init(cfg));
  if (cfg.layer_norm)
    std::tie(ln_g_, ln_b_) = add_layer_norm(store, scope, "ln", k * H());
  else if (has_bias)
    b_ = &add_param(store, scope, "b", 1, k * H(), bias_init(cfg));
}

std::pair<Param*, Param*> CellBase::add_layer_norm(ParamStore& store, const std::string& scope,
                                                   const std::string& prefix, Index cols) const {
  Param* gain = &add_param(store, scope, prefix + "_g", 1, cols, init::constant(1));
  return {gain, &add_param(store, scope, prefix + "_b", 1, cols, init::constant(0))};
}

}  // namespace twin
