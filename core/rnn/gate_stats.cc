#include "rnn/gate_stats.h"

#include <algorithm>
#include <cmath>

#include "base/check.h"

namespace twin {

double pearson_r(const std::vector<double>& a, const std::vector<double>& b) {
  TW_CHECK(a.size() == b.size() && a.size() >= 2, "pearson_r: needs two equally long series of 2+ values");
  const double n = static_cast<double>(a.size());
  double ma = 0, mb = 0;
  for (size_t k = 0; k < a.size(); ++k) ma += a[k] / n, mb += b[k] / n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    sab += (a[k] - ma) * (b[k] - mb);
    saa += (a[k] - ma) * (a[k] - ma);
    sbb += (b[k] - mb) * (b[k] - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0.0;   // a constant series correlates with nothing
}

std::pair<std::string, std::string> gate_pair(const GateSeqs& gates) {
  if (gates.count("i") && gates.count("f")) return {"i", "f"};
  if (gates.count("z") && gates.count("r")) return {"z", "r"};
  return {"", ""};
}

void GateAccumulator::add(const GateSeqs& gates, const std::vector<int>& lengths) {
  if (gates.empty()) return;
  if (ga_.empty()) std::tie(ga_, gb_) = gate_pair(gates);
  if (count_.empty()) count_.assign(static_cast<size_t>(max_positions_), 0);
  const auto B = static_cast<Index>(lengths.size());
  size_t steps = 0;
  for (const auto& [name, seq] : gates) {
    auto& acc = sum_[name];
    acc.resize(static_cast<size_t>(max_positions_), 0);
    steps = std::max(steps, seq.size());
    for (Index t = 0; t < std::min<Index>(static_cast<Index>(seq.size()), max_positions_); ++t)
      for (Index k = 0; k < B; ++k)
        if (t < lengths[static_cast<size_t>(k)]) acc[static_cast<size_t>(t)] += seq[static_cast<size_t>(t)].row(k).mean();
  }
  for (Index t = 0; t < std::min<Index>(static_cast<Index>(steps), max_positions_); ++t)
    for (Index k = 0; k < B; ++k) {
      if (t >= lengths[static_cast<size_t>(k)]) continue;
      count_[static_cast<size_t>(t)] += 1;
      if (!ga_.empty() && unit_a_.size() < max_units_) {
        const Mat& a = gates.at(ga_)[static_cast<size_t>(t)];
        const Mat& b = gates.at(gb_)[static_cast<size_t>(t)];
        for (Index h = 0; h < a.cols(); ++h) {
          unit_a_.push_back(a(k, h));
          unit_b_.push_back(b(k, h));
        }
      }
    }
}

nlohmann::json GateAccumulator::summary() const {
  nlohmann::json out = nlohmann::json::object();
  size_t positions = 0;
  while (positions < count_.size() && count_[positions] > 0) ++positions;
  out["count"] = std::vector<double>(count_.begin(), count_.begin() + static_cast<long>(positions));
  for (const auto& [name, acc] : sum_) {
    std::vector<double> mean(positions);
    for (size_t t = 0; t < positions; ++t) mean[t] = acc[t] / count_[t];
    out["mean"][name] = mean;
  }
  if (!ga_.empty() && positions >= 2) {
    out["pair"] = {ga_, gb_};
    out["pearson_r_positions"] = pearson_r(out["mean"][ga_].get<std::vector<double>>(),
                                           out["mean"][gb_].get<std::vector<double>>());
    out["pearson_r_units"] = pearson_r(unit_a_, unit_b_);
  }
  return out;
}

}  // namespace twin
