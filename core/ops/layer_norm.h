// Layer normalisation (Ba et al. 2016) over the columns of each row: y = gain ⊙ (x - μ)/σ + bias.
// The ATR and LRN papers report with and without it.
#pragma once
#include "graph/graph.h"

namespace twin {

Var layer_norm(Var x, Var gain, Var bias, Real eps = Real(1e-5));   // x:[N,D], gain, bias:[1,D]

}  // namespace twin
