#include "lm_gates.h"

#include <cmath>

#include "data/batch.h"
#include "rnn/gates.h"

namespace twin::lm {

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
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0.0;
}

namespace {
std::vector<Ids> sentences(const Ids& stream, std::int32_t eos) {
  std::vector<Ids> out(1);
  for (auto id : stream) {
    out.back().push_back(id);
    if (id == eos) out.emplace_back();
  }
  if (out.back().empty()) out.pop_back();
  return out;
}

// The pair whose correlation the ATR paper reports (input vs forget), per cell family.
std::pair<std::string, std::string> gate_pair(const std::map<std::string, std::vector<Mat>>& gates) {
  if (gates.count("i") && gates.count("f")) return {"i", "f"};
  if (gates.count("z") && gates.count("r")) return {"z", "r"};
  return {"", ""};
}
}  // namespace

nlohmann::json gate_statistics(const LmModel& model, const LmCorpus& corpus, int dependency_sentences,
                               int max_positions) {
  const std::int32_t eos = corpus.vocab.find("<eos>");
  const std::vector<Ids> sents = sentences(corpus.test, eos);
  const std::string type = model.config().cell.type;
  const bool twin_gated = type == "atr" || type == "lrn";
  std::map<std::string, std::vector<double>> sum;   // gate -> per-position sum of unit means
  std::vector<double> count(static_cast<size_t>(max_positions), 0);
  std::vector<double> unit_a, unit_b;               // every (unit, position) value of the gate pair
  std::string ga, gb;
  nlohmann::json deps = nlohmann::json::array();
  Rng unused(0);
  const size_t batch = 32;
  for (size_t s0 = 0; s0 < sents.size(); s0 += batch) {
    std::vector<Ids> chunk(sents.begin() + static_cast<long>(s0),
                           sents.begin() + static_cast<long>(std::min(sents.size(), s0 + batch)));
    SeqBatch b = pad_batch(chunk, 0);   // right padding never changes earlier positions of a forward LM
    Graph g(Mode::kInfer);
    LmState state;
    std::map<std::string, std::vector<Mat>> gates;
    model.forward(g, b.ids, state, unused, &gates);
    if (gates.empty()) return {{"cell", type}, {"note", "this cell records no gates"}};
    if (ga.empty()) std::tie(ga, gb) = gate_pair(gates);
    for (const auto& [name, seq] : gates) {
      auto& acc = sum[name];
      acc.resize(static_cast<size_t>(max_positions), 0);
      for (Index t = 0; t < std::min<Index>(static_cast<Index>(seq.size()), max_positions); ++t)
        for (Index k = 0; k < b.size(); ++k)
          if (t < b.lengths[static_cast<size_t>(k)]) acc[static_cast<size_t>(t)] += seq[static_cast<size_t>(t)].row(k).mean();
    }
    for (Index t = 0; t < std::min<Index>(b.steps(), max_positions); ++t)
      for (Index k = 0; k < b.size(); ++k) {
        if (t >= b.lengths[static_cast<size_t>(k)]) continue;
        count[static_cast<size_t>(t)] += 1;
        if (!ga.empty() && unit_a.size() < 2000000)
          for (Index h = 0; h < gates[ga][0].cols(); ++h) {
            unit_a.push_back(gates[ga][static_cast<size_t>(t)](k, h));
            unit_b.push_back(gates[gb][static_cast<size_t>(t)](k, h));
          }
      }
    if (twin_gated)
      for (Index k = 0; k < b.size() && static_cast<int>(deps.size()) < dependency_sentences; ++k) {
        const Index len = b.lengths[static_cast<size_t>(k)];
        const Mat m = dependency_matrix(gates["i"], gates["f"], k, len);
        nlohmann::json rows = nlohmann::json::array();
        for (Index t = 0; t < len; ++t) rows.push_back(std::vector<double>(m.row(t).data(), m.row(t).data() + len));
        deps.push_back({{"tokens", corpus.vocab.decode(chunk[static_cast<size_t>(k)])}, {"weights", rows}});
      }
  }
  nlohmann::json out = {{"cell", type}, {"layer", "top"}, {"sentences", sents.size()}};
  size_t positions = 0;
  while (positions < count.size() && count[positions] > 0) ++positions;
  out["count"] = std::vector<double>(count.begin(), count.begin() + static_cast<long>(positions));
  for (auto& [name, acc] : sum) {
    std::vector<double> mean(positions);
    for (size_t t = 0; t < positions; ++t) mean[t] = acc[t] / count[t];
    out["mean"][name] = mean;
  }
  if (!ga.empty()) {
    out["pair"] = {ga, gb};
    out["pearson_r_positions"] = pearson_r(out["mean"][ga].get<std::vector<double>>(),
                                           out["mean"][gb].get<std::vector<double>>());
    out["pearson_r_units"] = pearson_r(unit_a, unit_b);
  }
  if (twin_gated) out["dependencies"] = deps;
  return out;
}

}  // namespace twin::lm
