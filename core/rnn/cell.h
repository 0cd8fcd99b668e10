// The recurrent cell interface (DESIGN §3.5). Every input-side GEMM happens once for the whole sequence in
// project_inputs; step() holds only the recurrence. Masking is the driver's job (rnn.h), not the cell's.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "rnn/cell_config.h"

namespace twin {

struct CellState {
  Var h;   // [B, H]
  Var c;   // [B, H] memory (LSTM, RAN, SRU); unset for the others
};

// Per-step gate values, filled only when a record is passed (off by default, zero cost when off).
// Names: ATR/LRN "i","f"; GRU "z","r"; LSTM "i","f","o"; each [B, H].
struct GateRecord {
  std::vector<std::pair<std::string, Mat>> values;
  void add(const std::string& name, const Mat& v) { values.emplace_back(name, v); }
};

// Table 1 of the ATR paper: weight matrices and matrix transformations per step.
struct CellInfo {
  int weight_matrices = 0;
  int matrix_transformations = 0;
};

class Cell {
 public:
  virtual ~Cell() = default;
  virtual const std::string& name() const = 0;       // registered type name
  virtual int input_dim() const = 0;                 // I
  virtual int hidden_dim() const = 0;                // H
  virtual int k() const = 0;                         // projected width = k * H (may be 0: T-GRU)
  virtual bool has_memory() const { return false; }  // uses CellState::c
  virtual Var project_inputs(Var x) const = 0;       // [T*B, I] -> [T*B, k*H]; invalid Var when k == 0
  virtual CellState step(Var xp_t, const CellState& prev, GateRecord* rec = nullptr) const = 0;
  virtual CellState zero_state(Graph& g, Index batch) const;
  virtual CellInfo info() const = 0;
  // Closed-form parameter count for this cell's config (the formula in the cell's header); tests compare
  // it with what the ParamStore holds.
  virtual Index expected_params() const = 0;
};

}  // namespace twin
