#include "nn/seq_dropout.h"

#include "ops/ops.h"

namespace twin {

Var seq_dropout(Var x, Index batch, Real p, Rng& rng) {
  TW_CHECK(batch > 0 && x.rows() % batch == 0, "seq_dropout: ", shape_str(x), " is not [T*B, D] for B=", batch);
  if (p == 0 || !x.g->training()) return x;
  return mul_tile_rows(x, x.g->constant(dropout_mask(rng, batch, x.cols(), p)));
}

}  // namespace twin
