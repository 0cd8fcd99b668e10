// Named cell configurations that cover every registered cell at its defaults plus each variant option
// (ATR output/bias/input_tanh/coupled, LRN/oLRN/RAN output and layer norm, GRU reset position, ...).
// The tests iterate over it (gradient checks, parameter counts, goldens): test code, compiled into the test
// binaries (twin_tests in float, twin_gradcheck in double), not into the core library.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "rnn/cell.h"

namespace twin {

struct NamedCellConfig {
  std::string name;   // "atr", "atr_tanh", "lrn_ln", ... (unique)
  CellConfig cfg;
};

// Every registered cell once at its defaults (name == type), then the variants. `hidden` is set on all.
std::vector<NamedCellConfig> cell_variants(int hidden);
// The config of cell_variants(hidden)'s entry `name`; an unknown name is an error naming it.
CellConfig cell_variant(const std::string& name, int hidden);

// A fixed, seeded tiny run used by the float-versus-double golden test (tests/golden/cells_forward.json):
// I = 3, H = cfg.hidden, T = 3, B = 2, lengths {3, 2}, parameters from ParamStore(seed 11) with
// uniform(-0.5, 0.5), a non-zero initial state, both directions.
struct CellFingerprint {
  double fwd_sum = 0;            // Σ of the forward h_all
  double bwd_sum = 0;            // Σ of the backward h_all
  double abs_mean = 0;           // mean |h| over both outputs (the scale for relative comparisons)
  std::vector<double> entries;   // forward h_all row 0, then the forward and backward final h
};
CellFingerprint cell_fingerprint(CellConfig cfg);

}  // namespace twin
