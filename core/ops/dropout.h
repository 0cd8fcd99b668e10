// Inverted dropout: kept units are scaled by 1/(1-p) at training time so inference is the identity.
// Variational (per-sequence) dropout: draw dropout_mask(B, D) once and apply it at every step with
// `x * g.constant(mask)` (or mul_tile_rows on a whole [T*B, D] sequence).
#pragma once
#include "base/rng.h"
#include "graph/graph.h"

namespace twin {

Var dropout(Var x, Real p, Rng& rng);              // identity when p == 0 or the graph is in kInfer mode
Mat dropout_mask(Rng& rng, Index rows, Index cols, Real p);   // entries 0 or 1/(1-p)

}  // namespace twin
