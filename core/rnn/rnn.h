// The driver (DESIGN §5.4): one input GEMM for the whole sequence, then the time loop; padding carries
// the state through unchanged (h = m h_new + (1-m) h_prev, as in the authors' code), so right-padded
// batches are correct in both directions. Initial state in, final state out (truncated BPTT).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "rnn/cell.h"

namespace twin {

struct SeqOut {
  Var h_all;         // [T*B, H] time-major, every step's (carried) h
  CellState last;    // state after the last real step of each sequence
  // With record_gates: gate name -> one [B, H] matrix per time step (in time order, either direction).
  std::map<std::string, std::vector<Mat>> gates;
};

// x: [T*B, I] time-major. mask: [T*B, 1] with 1 on real tokens, or empty when nothing is padded.
// init: a valid state, or {} for zeros.
SeqOut run_rnn(const Cell& cell, Var x, const Mat& mask, Index batch, Dir dir, CellState init = {},
               bool record_gates = false);

}  // namespace twin
