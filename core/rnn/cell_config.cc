#include "rnn/cell_config.h"

#include "base/check.h"
#include "base/json_reader.h"
#include "rnn/cell_factory.h"

namespace twin {

namespace {
using Problem = std::pair<std::string, std::string>;

// A value as cell_opt_text shows it; each takes the arguments of its option's table row (TW_CELL_OPT_ARGS).
std::string shown(bool v) { return v ? "true" : "false"; }
std::string shown(int v, int, int) { return std::to_string(v); }
std::string shown(double v, double, double) { return std::to_string(v); }
template <class E, std::size_t N>
std::string shown(E v, const NameTable<E, N>& names) {
  return "'" + std::string(name_of(names, v)) + "'";
}

// An option's help as the key table shows it: the registered cells whose kOptions hold it, then the row's help;
// nothing before an option that every cell reads (kEveryCellOptions).
std::string help_with_cells(CellOpt o, const char* help) {
  std::string cells;
  bool every = true;
  for (const std::string& type : registered_cell_names()) {
    if (cell_options(type).has(o))
      cells += (cells.empty() ? "" : ", ") + type;
    else
      every = false;
  }
  TW_CHECK(!cells.empty(), "cell option ", cell_opt_key(o), " is read by no registered cell");
  return every ? std::string(help) : cells + ": " + help;
}

ConfigTable<CellConfig> make_cell_table() {
  using C = CellConfig;
  ConfigTable<C> t;
  // type and hidden, which every cell reads, then one row per option (its row in TWIN_CELL_OPTIONS, e.g.
  // .flag("layer_norm", &C::layer_norm, "layer norm on ...")).
#define TW_CELL_ROW(opt, key, Type, dflt, kind, args, help) \
  .kind(#key, &C::key TW_CELL_OPT_ARGS args, help_with_cells(CellOpt::opt, help))
  t.text("type", &C::type, "the cell: a registered name (README, The cells)")
      .integer("hidden", &C::hidden, 0, 1 << 16, "H, units per direction (0: the task's model.hidden)")
      TWIN_CELL_OPTIONS(TW_CELL_ROW);
#undef TW_CELL_ROW
  t.rule([](const C& c) {
    if (is_registered_cell(c.type)) return Problem{"", ""};
    std::vector<std::string> names = registered_cell_names();
    std::string all, guess = closest_name(c.type, names);
    for (size_t i = 0; i < names.size(); ++i) all += (i ? ", " : "") + names[i];
    return Problem{"type", "is not a registered cell: \"" + c.type + "\"; registered: " + all +
                               (guess.empty() ? "" : " (did you mean \"" + guess + "\"?)")};
  });
  // Values inside a row's bounds that the cells still cannot take.
  t.rule([](const C& c) {
    if (c.recurrent_bound > 0) return Problem{"", ""};
    return Problem{"recurrent_bound", "must be > 0 (got 0: indrnn's |u| <= bound would cut every step off the "
                                      "previous one)"};
  });
  t.rule([](const C& c) {
    if (c.forget_lower_bound < 1) return Problem{"", ""};
    return Problem{"forget_lower_bound", "must be < 1 (got 1: hgrn's forget gate would be 1 at every step and its "
                                         "state would never change from the initial one)"};
  });
  return t;
}
}  // namespace

const ConfigTable<CellConfig>& cell_table() {
  static const ConfigTable<CellConfig> t = make_cell_table();
  return t;
}

std::string_view cell_opt_key(CellOpt o) {
  switch (o) {
#define TW_CELL_KEY(opt, key, ...) \
  case CellOpt::opt: return #key;
    TWIN_CELL_OPTIONS(TW_CELL_KEY)
#undef TW_CELL_KEY
  }
  return "?";
}

bool cell_opt_is_default(const CellConfig& cfg, CellOpt o) {
  static const CellConfig d;
  switch (o) {
#define TW_CELL_DEFAULT(opt, key, ...) \
  case CellOpt::opt: return cfg.key == d.key;
    TWIN_CELL_OPTIONS(TW_CELL_DEFAULT)
#undef TW_CELL_DEFAULT
  }
  return true;
}

std::string cell_opt_text(const CellConfig& cfg, CellOpt o) {
  switch (o) {
#define TW_CELL_TEXT(opt, key, Type, dflt, kind, args, help) \
  case CellOpt::opt: return #key "=" + shown(cfg.key TW_CELL_OPT_ARGS args);
    TWIN_CELL_OPTIONS(TW_CELL_TEXT)
#undef TW_CELL_TEXT
  }
  return "?";
}

CellConfig parse_cell(JsonReader& r) { return cell_table().parse(r); }
nlohmann::json to_json(const CellConfig& c) { return cell_table().to_json(c); }

}  // namespace twin
