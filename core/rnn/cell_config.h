// A cell's settings ("model.cell" in every task) and their table (base/config_table.h): the parser, to_json, the
// key reference and the name tables of the choice settings all come from cell_table(), in rnn/ beside the cells
// that read them. Which cell accepts which option is each cell's own check (rnn/cell_util.h check_cell_config).
#pragma once
#include <string>

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

// Variant and size settings of a cell. Every field is recorded in the resolved config.
struct CellConfig {
  std::string type = "atr";                      // a registered name: registered_cell_names()
  int hidden = 0;                                // H (0: the task fills it from its model section)
  CellOutput output = CellOutput::kDefault;
  CellBias bias = CellBias::kDefault;
  bool input_tanh = false;                       // ATR: h = i ⊙ tanh(p) + f ⊙ h_prev
  bool coupled = false;                          // ATR: i = 1 - f
  bool layer_norm = false;                       // LRN, RAN (and oLRN): layer norm on the input projections; ATR: on both
  WeightInit init = WeightInit::kUniform;
  double init_scale = 0.08;                      // the papers' uniform(-0.08, 0.08)
  BiasInit bias_init = BiasInit::kZero;          // every cell with biases (an LSTM's forget_bias is added on top)
  double forget_bias = 0.0;                      // LSTM: initial forget-gate bias
  bool gru_reset_after = true;                   // GRU: r ⊙ (h U_h) (one [H,3H] GEMM) or (r ⊙ h) U_h
  int transitions = 1;                           // dt: number of T-GRU transitions after the L-GRU
  RanContent content = RanContent::kDefault;
};

const ConfigTable<CellConfig>& cell_table();
// Strict parser of a "cell" object (unknown key, wrong type, unregistered type: an error naming the key).
CellConfig parse_cell(JsonReader& r);
nlohmann::json to_json(const CellConfig& c);

}  // namespace twin
