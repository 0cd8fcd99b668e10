// The recurrent cell interface (DESIGN §3.5). Every input-side GEMM happens once for the whole sequence in
// project_inputs; step() holds only the recurrence. Masking is the driver's job (rnn.h), not the cell's.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"
#include "rnn/cell_config.h"

namespace twin {

struct CellState {
  Var h;   // [B, H]
  Var c;   // [B, H] memory (LSTM, RAN, SRU, QRNN, HGRN); unset for the others
};

enum class Dir { kForward, kBackward };

// A whole sequence run by the cell itself (Cell::run_sequence): every step's h and the state after the last step
// processed (time T-1 forward, time 0 backward).
struct SequenceRun {
  Var h_all;         // [T*B, H] time-major
  CellState last;
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

// What a cell is, for the code above rnn/ that treats cells differently (issue 54: by a property, never by the
// cell's name). Each cell class gives `static CellTraits traits(const CellConfig&)`, registered beside its
// constructor (cell_factory.cc); cell_traits(cfg) looks it up by cfg.type without building the cell.
struct CellTraits {
  // h_t = g(i_t ⊙ v_t + f_t ⊙ h_{t-1}) on h itself, with i and f recorded as "i" and "f" (ATR, LRN): with
  // g = identity and h_0 = 0, h_T = Σ_k g_k ⊙ v_k exactly (rnn/gates.h), which the dependency and memory
  // analyses read.
  bool twin_gated = false;
  // Twin-gated cells: v_t is column block value_block of project_inputs' [N, k·H] output, through tanh when
  // value_tanh; value_text says so in words, for the reports that show it.
  int value_block = -1;
  bool value_tanh = false;
  std::string_view value_text = "";
  // The output nonlinearity g as this config resolves it (kIdentity or kTanh); kDefault for a cell without an
  // "output" option.
  CellOutput output = CellOutput::kDefault;
  bool has_memory = false;   // uses CellState::c, as Cell::has_memory() of the built cell says
  bool operator==(const CellTraits&) const = default;
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
  // Whether run_rnn hands this cell the whole sequence (run_sequence) instead of calling step() per time step: the
  // cells whose gates read only the input run their recurrence as one fused scan (rnn/linear_recurrence.h).
  virtual bool runs_whole_sequence() const { return false; }
  // xp = project_inputs(x) [T*B, k·H] time-major; mask [T*B, 1] of 0/1 or empty; init a valid state. Padded steps
  // carry the state exactly, as run_rnn's step loop does. gates: when non-null, filled as SeqOut::gates is (name ->
  // one [B, H] per step, in time order in either direction). Throws for a cell without runs_whole_sequence().
  virtual SequenceRun run_sequence(Var xp, const Mat& mask, Index batch, Dir dir, const CellState& init,
                                   std::map<std::string, std::vector<Mat>>* gates) const;
  // A whole layer run on the raw input x [T*B, I] by a library's kernel (model.cell.kernel = "dnnl": LSTM and GRU
  // through oneDNN, rnn/dnnl_layer.h), asked by run_rnn before project_inputs: the same values as the step loop.
  // nullopt: run as usual (the suite's kernel, or this call has padded steps or records gates).
  virtual std::optional<SequenceRun> run_layer(Var, const Mat&, Index, Dir, const CellState&, bool) const {
    return std::nullopt;
  }
  virtual CellInfo info() const = 0;
  // Closed-form parameter count for this cell's config (the formula in the cell's header); tests compare
  // it with what the ParamStore holds.
  virtual Index expected_params() const = 0;
};

}  // namespace twin
