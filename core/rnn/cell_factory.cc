#include "rnn/cell_factory.h"

#include "rnn/atr.h"
#include "rnn/deep_transition.h"
#include "rnn/gru.h"
#include "rnn/hgrn.h"
#include "rnn/indrnn.h"
#include "rnn/lgru.h"
#include "rnn/lrn.h"
#include "rnn/lstm.h"
#include "rnn/mingru.h"
#include "rnn/minlstm.h"
#include "rnn/olrn.h"
#include "rnn/qrnn.h"
#include "rnn/ran.h"
#include "rnn/sru.h"
#include "rnn/srnn.h"
#include "rnn/tgru.h"

namespace twin {

namespace {

using Maker = std::unique_ptr<Cell> (*)(const CellConfig&, int, ParamStore&, const std::string&);
using Traits = CellTraits (*)(const CellConfig&);

template <typename C>
std::unique_ptr<Cell> make(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope) {
  return std::make_unique<C>(cfg, input_dim, store, scope);
}

struct Entry {
  const char* name;
  Maker maker;
  Traits traits;
  CellOptSet options;
};

// A cell class's row: its constructor, traits() and kOptions side by side.
template <typename C>
constexpr Entry entry(const char* name) {
  return {name, &make<C>, &C::traits, C::kOptions};
}

// The registry: an explicit table (static self-registration would be dropped by the static library).
// Adding a cell: its own rnn/<name>.h/.cc with equations + citation at the top, one line here; the
// tests enumerate registered_cell_names() and cell_variants() (cell_variants.cc).
constexpr Entry kCells[] = {
    entry<AtrCell>("atr"),   entry<GruCell>("gru"),   entry<LstmCell>("lstm"),
    entry<RanCell>("ran"),   entry<LrnCell>("lrn"),   entry<OlrnCell>("olrn"),
    entry<SruCell>("sru"),   entry<LgruCell>("lgru"), entry<TgruCell>("tgru"),
    {"dt", &make_dt_cell, &dt_traits, kDtOptions}, entry<SrnnCell>("srnn"),
    // issue 55: the gates of these read x only (IndRNN's recurrence is element-wise)
    entry<MinGruCell>("mingru"), entry<MinLstmCell>("minlstm"), entry<QrnnCell>("qrnn"),
    entry<IndRnnCell>("indrnn"), entry<HgrnCell>("hgrn"),
};

const Entry* find_entry(const std::string& type) {
  for (const Entry& e : kCells)
    if (type == e.name) return &e;
  return nullptr;
}

const Entry& registered_entry(const std::string& type) {
  if (const Entry* e = find_entry(type)) return *e;
  std::string names;
  for (const Entry& e : kCells) names += std::string(names.empty() ? "" : ", ") + e.name;
  TW_FAIL("unknown cell type '", type, "'; registered cells: ", names);
}

}  // namespace

std::unique_ptr<Cell> make_cell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope) {
  const Entry& e = registered_entry(cfg.type);
  TW_CHECK(cfg.hidden > 0, "cell '", cfg.type, "': hidden must be > 0, got ", cfg.hidden);
  return e.maker(cfg, input_dim, store, scope);
}

CellTraits cell_traits(const CellConfig& cfg) { return registered_entry(cfg.type).traits(cfg); }

CellOptSet cell_options(const std::string& type) { return registered_entry(type).options; }

std::vector<std::string> registered_cell_names() {
  std::vector<std::string> names;
  for (const Entry& e : kCells) names.emplace_back(e.name);
  return names;
}

bool is_registered_cell(const std::string& name) { return find_entry(name) != nullptr; }

}  // namespace twin
