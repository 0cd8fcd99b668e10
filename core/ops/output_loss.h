// The output layer and its loss as one node: Σ_n mask_n ℓ_n with ℓ the (label-smoothed) cross-entropy of
// softmax(x W + b) (or x Wᵀ + b for a tied embedding table W:[V,H]). Same value and gradients as
// cross_entropy(affine(x, W, b), ...) (tests/test_output_loss.cc, gradient-checked in grad_ops_softmax_loss.cc),
// with three passes over the [N, V] logits fewer: no bias broadcast before the product (so the product does
// not read C), the exponentials written over the logits in place (one [N, V] buffer instead of two), and the
// bias gradient summed while backward's rows are in cache instead of in a pass of its own.
#pragma once
#include "graph/graph.h"

namespace twin {

// x:[N,H]; w:[H,V], or [V,H] when w_is_vocab_major (a tied embedding table); b:[1,V] or invalid (no bias);
// mask:[N,1] (0 = padding) or empty (all ones). Returns [1,1].
Var linear_cross_entropy(Var x, Var w, bool w_is_vocab_major, Var b, const Ids& target, const Mat& mask,
                         Real label_smoothing = 0);

}  // namespace twin
