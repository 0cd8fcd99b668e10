// Global-norm gradient clipping over the trainable params (Pascanu et al. 2013; TF clip_by_global_norm):
//   n = √(Σ_p ‖grad_p‖²);   if max_norm > 0 and n > max_norm:  grad_p ← grad_p · max_norm / n
// Frozen params (trainable=false) are neither counted nor scaled. Row-sparse params contribute only their
// touched rows (the others are zero by ParamStore's contract). Sums are accumulated in double.
#pragma once
#include "base/real.h"
#include "graph/param.h"

namespace twin {

Real global_grad_norm(ParamStore& store);

// Returns the PRE-clip norm (for logging). max_norm <= 0: no clipping, still returns the norm. A non-finite
// norm leaves the gradients untouched (scaling would turn every gradient into NaN); the caller should skip
// the step, see grads_finite().
Real clip_global_norm(ParamStore& store, Real max_norm);

// False when any trainable gradient holds a NaN or inf (the step should be skipped and reported).
bool grads_finite(ParamStore& store);

}  // namespace twin
