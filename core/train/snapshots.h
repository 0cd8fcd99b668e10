// Parameter snapshots for checkpoint averaging (Junczys-Dowmunt et al. 2016; Marian's --exponential-smoothing
// is the online alternative). With train.keep_snapshots = K the trainer writes <run>/snapshots/model.step<N>.bin
// after every dev evaluation and deletes all but the last K. average_params() averages any set of parameter
// files of one model (same names and shapes, checked before anything is changed).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "graph/param.h"

namespace twin {

// Writes the snapshot of `step` (atomically), then removes the oldest beyond `keep`.
void save_snapshot(const std::string& run_dir, const ParamStore& store, const nlohmann::json& config, long step,
                   int keep);
// The snapshot files of a run, by ascending step (empty when there are none).
std::vector<std::string> list_snapshots(const std::string& run_dir);
// store <- the mean of the files' parameters. Every file must hold exactly the store's names and shapes.
void average_params(const std::vector<std::string>& paths, ParamStore& store);

}  // namespace twin
