// Name -> cell constructor. The table lives in cell_factory.cc (an explicit list, not static
// self-registration, which a static library silently drops).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "graph/param.h"
#include "rnn/cell.h"

namespace twin {

// Parameters are created in `store` under `scope` ("lm/l0" -> "lm/l0/atr/W").
std::unique_ptr<Cell> make_cell(const CellConfig& cfg, int input_dim, ParamStore& store, const std::string& scope);
// The traits (rnn/cell.h) and the accepted options (the cell class's kOptions) of the registered cell
// cfg.type, without building it; an unregistered type throws, naming the registered ones.
CellTraits cell_traits(const CellConfig& cfg);
CellOptSet cell_options(const std::string& type);
std::vector<std::string> registered_cell_names();
bool is_registered_cell(const std::string& name);

}  // namespace twin
