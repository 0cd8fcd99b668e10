#include "rnn/dnnl_layer.h"

#include "ops/ops.h"

namespace twin {

void check_kernel_available(const CellConfig& cfg, const std::string& cell) {
  TW_CHECK(cfg.kernel != CellKernel::kDnnl || dnnl_rnn_available(), "cell '", cell,
           "': kernel='dnnl' needs a build with oneDNN (libdnnl-dev, cmake -DTW_WITH_DNNL=ON, float build); "
           "this one has none (HINT: kernel='suite', the suite's own kernels)");
}

bool dnnl_layer_runs(CellKernel kernel, const Mat& mask, bool record_gates) {
  return kernel == CellKernel::kDnnl && !record_gates && (mask.size() == 0 || (mask.array() == 1).all());
}

SequenceRun run_dnnl_layer(DnnlRnnCell cell, Var x, const DnnlRnnParams& p, Index batch, Dir dir,
                           const CellState& init) {
  const bool lstm = cell == DnnlRnnCell::kLstm;
  Var y = dnnl_rnn_layer(cell, x, p, init.h, lstm ? init.c : Var{}, batch, dir == Dir::kBackward);
  const Index n = x.rows();   // T*B: every step's h, then h_last [B, H], then c_last [B, H] for the LSTM
  SequenceRun run;
  run.h_all = slice_rows(y, 0, n);
  run.last.h = slice_rows(y, n, batch);
  if (lstm) run.last.c = slice_rows(y, n + batch, batch);
  return run;
}

}  // namespace twin
