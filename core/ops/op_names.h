// The canonical list of differentiable ops. The test suite fails if any of these was never
// gradient-checked (tests/grad_main.cc, OpCoverageEnv). Adding an op: write it with its math comment,
// add its name here, add a gradcheck TEST, and for a fused op an equality test against composed ops.
#pragma once
#include <array>
#include <string_view>

namespace twin {

inline constexpr std::array kAllOps = {
    // arith
    "add", "sub", "mul", "add_row", "mul_col", "scale", "add_scalar", "one_minus", "sum_all", "add_tile_rows",
    "mul_tile_rows",
    // linalg
    "matmul", "matmul_nt", "affine",
    // activations
    "sigmoid", "tanh", "relu", "exp", "log", "softplus", "minrnn_g",
    // shape
    "slice_rows", "slice_cols", "concat_cols", "stack_rows", "select_rows", "reshape", "transpose",
    // reduce
    "sum_rows", "sum_cols", "mean_rows_masked", "max_over_time",
    // embedding, softmax, losses
    "lookup", "softmax_rows", "log_softmax_rows", "masked_softmax_rows", "cross_entropy", "cross_entropy_rows",
    "pick", "linear_cross_entropy",
    // regularisation and normalisation
    "dropout", "layer_norm",
    // fused
    "mask_carry", "weighted_sum_steps", "atr_update",
    // fused cell kernels
    "lstm_cell", "gru_cell", "lrn_cell", "ran_cell", "sru_cell", "lgru_cell", "tgru_cell",
    "gru_reset_hidden", "gru_rb_update",
    // the gated linear recurrences (issue 55)
    "linear_scan", "carry_steps",
    // attention
    "scaled_dot_attention", "additive_scores_heads",
};

// Ops of the float build only, oneDNN's RNN primitives (ops/dnnl_rnn.h; oneDNN has no double): not in kAllOps, whose
// gradient checks run in double. tests/test_dnnl_rnn.cc checks their f32 gradients against f64 central differences
// of the cell equations and holds them equal to the suite's kernels.
inline constexpr std::array kFloatOnlyOps = {"dnnl_lstm", "dnnl_gru"};

}  // namespace twin
