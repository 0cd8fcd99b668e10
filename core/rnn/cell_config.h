// A cell's settings ("model.cell" in every task) and their table (base/config_table.h): the parser, to_json, the
// key reference and the name tables of the choice settings all come from cell_table(), in rnn/ beside the cells
// that read them. Every option is declared once, in TWIN_CELL_OPTIONS below; which cell accepts which option is
// the cell's own kOptions (a CellOptSet), and check_cell_config (rnn/cell_util.h) refuses the others.
#pragma once
#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "base/config_table.h"
#include "base/names.h"

namespace twin {

class JsonReader;

// The output nonlinearity g(.) where a cell has one; kDefault = the cell's own default (see its header).
enum class CellOutput { kDefault, kIdentity, kTanh };
inline constexpr NameTable<CellOutput, 3> kCellOutputNames{
    {{CellOutput::kDefault, "default"}, {CellOutput::kIdentity, "identity"}, {CellOutput::kTanh, "tanh"}}};

// Biases: ATR chooses among none/input/recurrent/both (its default: input); the others have default or none.
enum class CellBias { kDefault, kNone, kInput, kRecurrent, kBoth };
inline constexpr NameTable<CellBias, 5> kCellBiasNames{{{CellBias::kDefault, "default"},
                                                        {CellBias::kNone, "none"},
                                                        {CellBias::kInput, "input"},
                                                        {CellBias::kRecurrent, "recurrent"},
                                                        {CellBias::kBoth, "both"}}};

// Initialiser of the weight matrices (graph/init.h).
enum class WeightInit { kUniform, kNormal, kGlorot, kOrthogonal };
inline constexpr NameTable<WeightInit, 4> kWeightInitNames{{{WeightInit::kUniform, "uniform"},
                                                            {WeightInit::kNormal, "normal"},
                                                            {WeightInit::kGlorot, "glorot"},
                                                            {WeightInit::kOrthogonal, "orthogonal"}}};

// Initialiser of the biases: 0 (the default), or uniform(-init_scale, init_scale) like the weights, as the ATR
// authors' PyTorch cell initialises every parameter (issue 51: a cell's form is part of its tuning space).
enum class BiasInit { kZero, kUniform };
inline constexpr NameTable<BiasInit, 2> kBiasInitNames{{{BiasInit::kZero, "zero"}, {BiasInit::kUniform, "uniform"}}};

// RAN's content c̃: x W_c (linear, the default) or x itself (identity, Lee et al.'s simplest RAN, needs I == H).
enum class RanContent { kDefault, kLinear, kIdentity };
inline constexpr NameTable<RanContent, 3> kRanContentNames{
    {{RanContent::kDefault, "default"}, {RanContent::kLinear, "linear"}, {RanContent::kIdentity, "identity"}}};

// minGRU's and minLSTM's candidate h̃ = g(x W_h + b_h): the minRNNs reference code's g (x + 1/2 for x >= 0, σ(x)
// below; the default), tanh, or the identity.
enum class CellCandidate { kDefault, kG, kTanh, kIdentity };
inline constexpr NameTable<CellCandidate, 4> kCellCandidateNames{{{CellCandidate::kDefault, "default"},
                                                                  {CellCandidate::kG, "g"},
                                                                  {CellCandidate::kTanh, "tanh"},
                                                                  {CellCandidate::kIdentity, "identity"}}};

// Who runs an LSTM's or GRU's recurrence: the suite's kernels (ops/fused_cells.h) or oneDNN's RNN primitives
// (ops/dnnl_rnn.h, in a build with oneDNN; rnn/dnnl_layer.h says when).
enum class CellKernel { kSuite, kDnnl };
inline constexpr NameTable<CellKernel, 2> kCellKernelNames{{{CellKernel::kSuite, "suite"}, {CellKernel::kDnnl, "dnnl"}}};

// Every option of a cell beyond type and hidden, once, in the order of the key reference (issue 54: an option
// used to be declared four times, as struct field, table row, CellOpt and refusal line). One row is
//   X(enumerator, key, type, default, table kind, (bounds | name table), help)
// where the kind names the ConfigTable row (integer, number, flag, choice) and the parenthesised group is what
// that row takes after the member (empty for a flag). From the rows come CellConfig's fields, CellOpt, the
// table rows (cell_config.cc) and the refusal of an option a cell does not read (cell_util.cc). Adding an
// option: one row here, its CellOpt in the kOptions of each cell that reads it, the reading in that cell.
// The help says what the option does, never which cells read it: the key table prefixes each help with the
// cells whose kOptions hold it ("lstm, minlstm: initial forget-gate bias"), so experiments/KEYS.md and
// --print-keys always name the cells that accept an option, and the README's cell table need not.
// Notes beyond the help text: layer_norm is on the input projections (lrn, olrn, ran) or on both (atr);
// init_scale 0.08 is the papers' uniform(-0.08, 0.08); an LSTM's forget_bias is added on top of bias_init.
#define TWIN_CELL_OPTIONS(X)                                                                                   \
  X(kOutput, output, CellOutput, CellOutput::kDefault, choice, (kCellOutputNames),                            \
    "output nonlinearity g")                                                        \
  X(kBias, bias, CellBias, CellBias::kDefault, choice, (kCellBiasNames),                                       \
    "biases: atr none/input/recurrent/both; the others default/none")                                          \
  X(kInputTanh, input_tanh, bool, false, flag, (), "h = i * tanh(p) + f * h_prev")                        \
  X(kCoupled, coupled, bool, false, flag, (), "i = 1 - f")                                                \
  X(kLayerNorm, layer_norm, bool, false, flag, (), "layer norm on the projections")      \
  X(kInit, init, WeightInit, WeightInit::kUniform, choice, (kWeightInitNames),                                 \
    "initialiser of the weight matrices")                                                                      \
  X(kInitScale, init_scale, double, 0.08, number, (0.0, 10.0), "uniform(-a, a) / normal(0, a) scale")          \
  X(kBiasInit, bias_init, BiasInit, BiasInit::kZero, choice, (kBiasInitNames),                                 \
    "biases start at zero, or uniform(-init_scale, init_scale) like the weights")                              \
  X(kForgetBias, forget_bias, double, 0.0, number, (-100.0, 100.0), "initial forget-gate bias") \
  X(kGruResetAfter, gru_reset_after, bool, true, flag, (), "r * (h U) (one [H,3H] product) or (r * h) U") \
  X(kTransitions, transitions, int, 1, integer, (0, 64), "T-GRU transitions after the L-GRU")              \
  X(kContent, content, RanContent, RanContent::kDefault, choice, (kRanContentNames),                           \
    "content x W_c (linear) or x (identity, needs I = H)")                                                \
  X(kHighwayBias, highway_bias, double, 0.0, number, (-100.0, 100.0),                                       \
    "initial bias b_r of the highway gate r (< 0: h starts near the highway x_h)")                      \
  X(kCandidate, candidate, CellCandidate, CellCandidate::kDefault, choice, (kCellCandidateNames),              \
    "h~ = g(x W_h + b): the reference g (x + 0.5 if x >= 0, else sigmoid), tanh, identity")   \
  X(kNormalizeGates, normalize_gates, bool, true, flag, (), "f, i <- f / (f + i), i / (f + i)")       \
  X(kFilterWidth, filter_width, int, 1, integer, (1, 2), "convolution width (2: x_{t-1} and x_t)")       \
  X(kRecurrentBound, recurrent_bound, double, 1.0, number, (0.0, 100.0),                                       \
    "|u| <= bound, projected after every update (> 0)")                                                \
  X(kForgetLowerBound, forget_lower_bound, double, 0.0, number, (0.0, 1.0),                                    \
    "forget gate in [g, 1), g < 1; in an lm of L > 1 layers layer k gets g k / (L - 1)")               \
  X(kKernel, kernel, CellKernel, CellKernel::kSuite, choice, (kCellKernelNames),                               \
    "recurrence by the suite's kernels or oneDNN's RNN primitives (padded batches: the suite's)")

// A row's parenthesised group as trailing arguments: TW_CELL_OPT_ARGS (0, 64) is ", 0, 64", TW_CELL_OPT_ARGS () is
// nothing; so `f(x TW_CELL_OPT_ARGS args)` calls f(x, 0, 64), f(x, kCellOutputNames) or f(x).
#define TW_CELL_OPT_ARGS(...) __VA_OPT__(, ) __VA_ARGS__

// Variant and size settings of a cell. Every field is recorded in the resolved config.
struct CellConfig {
  std::string type = "atr";   // a registered name: registered_cell_names()
  int hidden = 0;             // H (0: the task fills it from its model section)
#define TW_CELL_FIELD(opt, key, Type, dflt, kind, args, help) Type key = dflt;
  TWIN_CELL_OPTIONS(TW_CELL_FIELD)
#undef TW_CELL_FIELD
};

// One enumerator per option, in the rows' order.
enum class CellOpt {
#define TW_CELL_ENUM(opt, ...) opt,
  TWIN_CELL_OPTIONS(TW_CELL_ENUM)
#undef TW_CELL_ENUM
};
#define TW_CELL_ENUM(opt, ...) CellOpt::opt,
inline constexpr std::array kAllCellOpts{TWIN_CELL_OPTIONS(TW_CELL_ENUM)};
#undef TW_CELL_ENUM

// A set of options, usable in constant expressions: a cell's `static constexpr CellOptSet kOptions`.
class CellOptSet {
 public:
  constexpr CellOptSet() = default;
  constexpr CellOptSet(std::initializer_list<CellOpt> opts) {
    for (CellOpt o : opts) bits_ |= bit(o);
  }
  constexpr bool has(CellOpt o) const { return (bits_ & bit(o)) != 0; }
  constexpr CellOptSet operator|(CellOptSet o) const {
    CellOptSet s;
    s.bits_ = bits_ | o.bits_;
    return s;
  }
  constexpr bool operator==(const CellOptSet&) const = default;

 private:
  static constexpr std::uint32_t bit(CellOpt o) { return std::uint32_t{1} << static_cast<unsigned>(o); }
  std::uint32_t bits_ = 0;
};
static_assert(kAllCellOpts.size() <= 32, "CellOptSet holds 32 options");

// The options every cell reads: its biases ("bias"; ATR has its own values, the others default/none, which
// the cells check) and the initialisers of its weights and biases (weight_init, bias_init in cell_util.h).
inline constexpr CellOptSet kEveryCellOptions{CellOpt::kBias, CellOpt::kInit, CellOpt::kInitScale,
                                              CellOpt::kBiasInit};

// The option's key ("layer_norm").
std::string_view cell_opt_key(CellOpt o);
// Whether cfg leaves the option at its default.
bool cell_opt_is_default(const CellConfig& cfg, CellOpt o);
// "key=value" as the refusal of an option shows it: layer_norm=true, output='tanh', forget_bias=1.000000.
std::string cell_opt_text(const CellConfig& cfg, CellOpt o);

const ConfigTable<CellConfig>& cell_table();
// Strict parser of a "cell" object (unknown key, wrong type, unregistered type: an error naming the key).
CellConfig parse_cell(JsonReader& r);
nlohmann::json to_json(const CellConfig& c);

}  // namespace twin
