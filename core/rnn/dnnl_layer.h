// kernel = "dnnl" for the LSTM and GRU (rnn/lstm.h, rnn/gru.h): when oneDNN's RNN primitive runs a layer, and the
// cutting of its one node (ops/dnnl_rnn.h) into what run_rnn returns.
//
// Padding: run_rnn carries the state through padded steps (h = m h_new + (1 − m) h_prev), so a sequence's state
// stops at its own last token forward and starts at it backward. oneDNN 2.6's RNN primitives take no sequence
// lengths: run over a padded batch they would step through the padding and give other final states and other
// backward-direction outputs. A call with a padded step (a 0 in the mask) or a gate record therefore runs the
// suite's own kernels, exactly as with kernel = "suite"; unpadded batches (the language models' fixed-length
// windows, the speed benchmark, a batch of equal lengths) run oneDNN. Sorting or splitting the batch by length
// would run oneDNN on the padded tasks too, at the price of a primitive per length; not done.
#pragma once
#include <optional>
#include <string>

#include "ops/dnnl_rnn.h"
#include "rnn/cell.h"

namespace twin {

// Throws for kernel = "dnnl" in a build without oneDNN (TW_WITH_DNNL off or not found, or the double build),
// naming the cell and the key.
void check_kernel_available(const CellConfig& cfg, const std::string& cell);

// Whether oneDNN runs this call: the cell asks for it, no step is padded (mask empty or all ones) and no gates are
// recorded.
bool dnnl_layer_runs(CellKernel kernel, const Mat& mask, bool record_gates);

// dnnl_rnn_layer over x with init (c only for the LSTM) in direction dir, cut into h_all and the last state.
SequenceRun run_dnnl_layer(DnnlRnnCell cell, Var x, const DnnlRnnParams& p, Index batch, Dir dir,
                           const CellState& init);

}  // namespace twin
