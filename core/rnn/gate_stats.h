// Gate statistics over a test set, for the ATR paper's Fig. 3 (mean input and forget gate per position and
// their Pearson r; the paper reports r = -0.9819 for its NMT decoder). Shared by the LM (top layer) and NMT
// (decoder cells) analyses: feed batches of recorded gates (gate name -> one [B, H] matrix per time step,
// rows past each sequence's length ignored), then read the JSON summary.
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "base/real.h"

namespace twin {

double pearson_r(const std::vector<double>& a, const std::vector<double>& b);

using GateSeqs = std::map<std::string, std::vector<Mat>>;

// The input-like and forget-like gate of a record: ("i","f") for ATR/LRN/LSTM/RAN/SRU, ("z","r") for GRU,
// ("","") when there is no such pair.
std::pair<std::string, std::string> gate_pair(const GateSeqs& gates);

class GateAccumulator {
 public:
  explicit GateAccumulator(int max_positions = 60, size_t max_unit_values = 2000000)
      : max_positions_(max_positions), max_units_(max_unit_values) {}
  // gates of one batch; lengths[b] = real steps of sequence b.
  void add(const GateSeqs& gates, const std::vector<int>& lengths);
  bool empty() const { return sum_.empty(); }
  // {"count": per-position sequences, "mean": {gate: per-position mean}, "pair": [a, b],
  //  "pearson_r_positions": r over the position means, "pearson_r_units": r over every (unit, step) value}
  nlohmann::json summary() const;

 private:
  int max_positions_;
  size_t max_units_;
  std::map<std::string, std::vector<double>> sum_;
  std::vector<double> count_;
  std::vector<double> unit_a_, unit_b_;
  std::string ga_, gb_;
};

}  // namespace twin
