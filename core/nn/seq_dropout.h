// Variational dropout on a time-major sequence (Gal & Ghahramani 2016): one mask per sequence [B, D], the same at
// every position, as tf.nn.dropout with noise_shape [B, 1, D] (R-Net's func.py `dropout`, "recurrent" mode).
// Composed from dropout_mask and mul_tile_rows; the identity when p == 0 or the graph is not training.
#pragma once
#include "base/rng.h"
#include "graph/graph.h"

namespace twin {

// x: [T*B, D], row t*B + b -> x ⊙ (m_b tiled over t), m: [B, D] of 0 or 1/(1-p).
Var seq_dropout(Var x, Index batch, Real p, Rng& rng);

}  // namespace twin
