// What a task gives the shared trainer (DESIGN §4 "Task shape"). The trainer is a template over the task
// type, not a virtual hierarchy over batch types; this header names the pieces both sides use.
//
// A task TaskT provides:
//   ParamStore& params();
//   size_t begin_epoch(int epoch, Rng& order_rng);      // prepares the epoch's batches, returns how many
//   LossOut loss(Graph& g, size_t batch, Rng& rng);     // builds the training loss of one batch
//   Metrics evaluate(Split split);                      // full evaluation of a split (inference mode)
//   NamedMats save_state() const;  void load_state(const NamedMats&);   // e.g. LM carried hidden state
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "graph/graph.h"

namespace twin {

enum class Split { kTrain, kDev, kTest };
const char* split_name(Split s);

using NamedMats = std::vector<std::pair<std::string, Mat>>;

struct LossOut {
  Var loss;              // the 1x1 Var backward() runs on (already reduced as the recipe says)
  double loss_sum = 0;   // for logging: the summed per-unit loss (e.g. NLL over tokens)
  double units = 0;      // tokens / sentences it was summed over; words/s counts these
};

struct Metrics {
  std::string primary_name = "loss";
  double primary = 0;
  bool higher_is_better = false;
  nlohmann::json values = nlohmann::json::object();   // every metric by name, including the primary
  bool better_than(const Metrics& o) const {
    return higher_is_better ? primary > o.primary : primary < o.primary;
  }
};

// An evaluation's Metrics from its scores: the primary is values[primary_name] (a number; an Error otherwise).
inline Metrics metrics_from(nlohmann::json values, const std::string& primary_name, bool higher_is_better) {
  Metrics m;
  m.primary_name = primary_name;
  m.higher_is_better = higher_is_better;
  m.primary = values.at(primary_name).get<double>();
  m.values = std::move(values);
  return m;
}

}  // namespace twin
