#include "rnn/cell_factory.h"

#include "rnn/atr.h"
#include "rnn/deep_transition.h"
#include "rnn/gru.h"
#include "rnn/lgru.h"
#include "rnn/lrn.h"
#include "rnn/lstm.h"
#include "rnn/olrn.h"
#include "rnn/ran.h"
#include "rnn/sru.h"
#include "rnn/srnn.h"
#include "rnn/tgru.h"

namespace twin {

namespace {

using Maker = std::unique_ptr<Cell> (*)(const CellConfig&, int, ParamStore&, const std::string&);

template <typename C>
std::unique_ptr<Cell> make(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope) {
  return std::make_unique<C>(cfg, input_dim, store, scope);
}

struct Entry {
  const char* name;
  Maker maker;
};

// The registry: an explicit table (static self-registration would be dropped by the static library).
// Adding a cell: its own rnn/<name>.h/.cc with equations + citation at the top, one line here; the
// tests enumerate registered_cell_names() and cell_variants() (cell_variants.cc).
constexpr Entry kCells[] = {
    {"atr", &make<AtrCell>},   {"gru", &make<GruCell>},   {"lstm", &make<LstmCell>}, {"ran", &make<RanCell>},
    {"lrn", &make<LrnCell>},   {"olrn", &make<OlrnCell>}, {"sru", &make<SruCell>},   {"lgru", &make<LgruCell>},
    {"tgru", &make<TgruCell>}, {"dt", &make_dt_cell},     {"srnn", &make<SrnnCell>},
};

}  // namespace

std::unique_ptr<Cell> make_cell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope) {
  for (const Entry& e : kCells)
    if (cfg.type == e.name) {
      TW_CHECK(cfg.hidden > 0, "cell '", cfg.type, "': hidden must be > 0, got ", cfg.hidden);
      return e.maker(cfg, input_dim, store, scope);
    }
  std::string names;
  for (const Entry& e : kCells) names += std::string(names.empty() ? "" : ", ") + e.name;
  TW_FAIL("unknown cell type '", cfg.type, "'; registered cells: ", names);
}

std::vector<std::string> registered_cell_names() {
  std::vector<std::string> names;
  for (const Entry& e : kCells) names.emplace_back(e.name);
  return names;
}

bool is_registered_cell(const std::string& name) {
  for (const Entry& e : kCells)
    if (name == e.name) return true;
  return false;
}

}  // namespace twin
