#include "rnn/cell_config.h"

#include "base/json_reader.h"
#include "rnn/cell_factory.h"

namespace twin {

namespace {
using Problem = std::pair<std::string, std::string>;

ConfigTable<CellConfig> make_cell_table() {
  using C = CellConfig;
  ConfigTable<C> t;
  t.text("type", &C::type, "the cell: a registered name (README, The cells)")
      .integer("hidden", &C::hidden, 0, 1 << 16, "H, units per direction (0: the task's model.hidden)")
      .choice("output", &C::output, kCellOutputNames, "output nonlinearity g (atr, lrn, olrn, ran, sru)")
      .choice("bias", &C::bias, kCellBiasNames, "biases: atr none/input/recurrent/both; the others default/none")
      .flag("input_tanh", &C::input_tanh, "atr: h = i * tanh(p) + f * h_prev")
      .flag("coupled", &C::coupled, "atr: i = 1 - f")
      .flag("layer_norm", &C::layer_norm, "layer norm on the projections (atr, lrn, olrn, ran)")
      .choice("init", &C::init, kWeightInitNames, "initialiser of the weight matrices")
      .number("init_scale", &C::init_scale, 0.0, 10.0, "uniform(-a, a) / normal(0, a) scale")
      .choice("bias_init", &C::bias_init, kBiasInitNames,
              "biases start at zero, or uniform(-init_scale, init_scale) like the weights")
      .number("forget_bias", &C::forget_bias, -100.0, 100.0, "lstm: initial forget-gate bias")
      .flag("gru_reset_after", &C::gru_reset_after, "gru: r * (h U) (one [H,3H] product) or (r * h) U")
      .integer("transitions", &C::transitions, 0, 64, "dt: T-GRU transitions after the L-GRU")
      .choice("content", &C::content, kRanContentNames, "ran: content x W_c (linear) or x (identity, needs I = H)");
  t.rule([](const C& c) {
    if (is_registered_cell(c.type)) return Problem{"", ""};
    std::vector<std::string> names = registered_cell_names();
    std::string all, guess = closest_name(c.type, names);
    for (size_t i = 0; i < names.size(); ++i) all += (i ? ", " : "") + names[i];
    return Problem{"type", "is not a registered cell: \"" + c.type + "\"; registered: " + all +
                               (guess.empty() ? "" : " (did you mean \"" + guess + "\"?)")};
  });
  return t;
}
}  // namespace

const ConfigTable<CellConfig>& cell_table() {
  static const ConfigTable<CellConfig> t = make_cell_table();
  return t;
}

CellConfig parse_cell(JsonReader& r) { return cell_table().parse(r); }
nlohmann::json to_json(const CellConfig& c) { return cell_table().to_json(c); }

}  // namespace twin
