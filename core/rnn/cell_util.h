// Shared plumbing for the cells: a base class with the sizes and name, strict validation of the
// CellConfig options (an option a cell does not have is an error, never silently ignored), the
// initialisers, and the one input projection every cell uses.
#pragma once
#include <initializer_list>
#include <string>
#include <tuple>
#include <utility>

#include "graph/init.h"
#include "graph/param.h"
#include "ops/ops.h"
#include "rnn/cell.h"

namespace twin {

// The output nonlinearity g(.) of the cells that have one.
enum class Act { kIdentity, kTanh };

// Throws when hidden <= 0, input_dim <= 0, init_scale <= 0 for an initialiser that uses it, an option in `cfg`
// differs from its default while the cell (named `cell`) does not accept it (`allowed`: the cell's kOptions),
// or bias_init="uniform" has no biases to initialise. A cell's checks of its own values come after.
void check_cell_config(const CellConfig& cfg, int input_dim, const std::string& cell, CellOptSet allowed);
// cfg.output: "default" -> dflt, "identity", "tanh"; anything else throws.
Act parse_output(const CellConfig& cfg, Act dflt);
// The output nonlinearity as CellTraits::output records it.
inline CellOutput output_of(Act a) { return a == Act::kTanh ? CellOutput::kTanh : CellOutput::kIdentity; }
// cfg.bias for the non-ATR cells: "default" -> true, "none" -> false.
bool parse_has_bias(const CellConfig& cfg);
// cfg.init/init_scale -> an initialiser for weight matrices ("uniform" | "normal" | "glorot" | "orthogonal").
// Gates share one concatenated matrix ([I, k·H]), so glorot's fan is that of the whole matrix, and
// orthogonal fills each square block separately (graph/init.h). Biases start as bias_init says, layer-norm gains at 1.
Init weight_init(const CellConfig& cfg);
// cfg.bias_init/init_scale -> an initialiser for biases: zeros, or uniform(-init_scale, init_scale).
Init bias_init(const CellConfig& cfg);

inline Var apply_act(Var x, Act a) { return a == Act::kTanh ? tanh(x) : x; }
// Column block j of width h: the j-th gate of a [N, k*H] projection.
inline Var chunk(Var x, Index j, Index h) { return slice_cols(x, j * h, h); }

// y = x W, with b added to the FIRST b.cols() columns only (b may cover all of them, or be null).
// Cells order their chunks so that the unbiased ones (SRU's highway, L-GRU's H(x), RAN's c̃) come last.
Var project(Var x, Param& w, Param* b);

// Records the named gates (each [B, H]) when a record is asked for; nothing when rec is null.
void record_gates(GateRecord* rec, std::initializer_list<std::pair<const char*, Var>> gates);
// Records the column blocks of m, each [B, h], under `names` in order (m: [B, names.size()·h]); for the cells
// whose fused node computes the gates inside, so that the record computes them again from the pre-activations.
void record_blocks(GateRecord& rec, const Mat& m, Index h, std::initializer_list<const char*> names);

// What every cell shares: its sizes and name, the check of its options (in the constructor, so that no cell can
// skip it), the parameters most cells have, and the input projection of those that need no other.
class CellBase : public Cell {
 public:
  // Throws as check_cell_config says (`options`: the cell's kOptions).
  CellBase(std::string name, const CellConfig& cfg, int input_dim, CellOptSet options)
      : name_(std::move(name)), input_dim_(input_dim), hidden_(cfg.hidden) {
    check_cell_config(cfg, input_dim, name_, options);
  }
  const std::string& name() const override { return name_; }
  int input_dim() const override { return input_dim_; }
  int hidden_dim() const override { return hidden_; }
  // x W + b, or LN(x W; ln_g, ln_b) when the cell has an input layer norm.                    [T*B, k·H]
  Var project_inputs(Var x) const override;

 protected:
  Index I() const { return input_dim_; }
  Index H() const { return hidden_; }
  // Parameter "<scope>/<name>/<letter>" of shape [rows, cols].
  Param& add_param(ParamStore& store, const std::string& scope, const std::string& letter, Index rows, Index cols,
                   const Init& init) const {
    return store.add(join_name(join_name(scope, name_), letter), rows, cols, init);
  }
  // The gain (ones) and bias (zeros) [1, cols] of a layer norm, named "<prefix>_g" and "<prefix>_b".
  std::pair<Param*, Param*> add_layer_norm(ParamStore& store, const std::string& scope, const std::string& prefix,
                                           Index cols) const;
  // W [I, k·H], then the layer norm's gain and bias [1, k·H] when cfg.layer_norm, else b [1, k·H] when the cell
  // has biases: the parameters of a cell whose only GEMM is the input one (LRN, OLRN).
  void add_normed_projection(const CellConfig& cfg, ParamStore& store, const std::string& scope, Index k);
  // h_prev U, the recurrent projection.                                                        [B, cols(U)]
  Var recurrent(const CellState& prev) const { return matmul(prev.h, prev.h.g->param(*u_)); }

  std::string name_;
  int input_dim_;
  int hidden_;
  Param* w_ = nullptr;      // W [I, k·H], the input projection
  Param* u_ = nullptr;      // U [H, ·], the recurrent one
  Param* b_ = nullptr;      // b on the first columns of x W (project), when the cell has biases
  Param* ln_g_ = nullptr;   // the input layer norm's gain and bias, when layer_norm: they replace b
  Param* ln_b_ = nullptr;
};

}  // namespace twin
