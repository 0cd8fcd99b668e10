// Embedding lookup with row-sparse gradients: backward scatter-adds only into the looked-up rows and
// marks them touched on the Param, so zeroing and sparse optimiser updates skip the rest of the vocabulary.
#pragma once
#include "graph/graph.h"

namespace twin {

Var lookup(Var table, const Ids& ids);   // table:[V,D], ids: N -> [N,D]

}  // namespace twin
