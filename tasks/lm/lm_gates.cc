#include "lm_gates.h"

#include <cmath>

#include "data/batch.h"
#include "rnn/cell_factory.h"
#include "rnn/gate_stats.h"
#include "rnn/gates.h"

namespace twin::lm {

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

}  // namespace

nlohmann::json gate_statistics(const LmModel& model, const LmCorpus& corpus, int dependency_sentences,
                               int max_positions) {
  const std::int32_t eos = corpus.vocab.find("<eos>");
  const std::vector<Ids> sents = sentences(corpus.test, eos);
  const std::string type = model.config().cell.type;
  const bool twin_gated = cell_traits(model.config().cell).twin_gated;   // its i, f unroll into dependencies
  GateAccumulator acc(max_positions);
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
    acc.add(gates, b.lengths);
    if (twin_gated)
      for (Index k = 0; k < b.size() && static_cast<int>(deps.size()) < dependency_sentences; ++k) {
        const Index len = b.lengths[static_cast<size_t>(k)];
        const Mat m = dependency_matrix(gates["i"], gates["f"], k, len);
        nlohmann::json rows = nlohmann::json::array();
        for (Index t = 0; t < len; ++t) rows.push_back(std::vector<double>(m.row(t).data(), m.row(t).data() + len));
        deps.push_back({{"tokens", corpus.vocab.decode(chunk[static_cast<size_t>(k)])}, {"weights", rows}});
      }
  }
  nlohmann::json out = acc.summary();
  out["cell"] = type;
  out["layer"] = "top";
  out["sentences"] = sents.size();
  if (twin_gated) out["dependencies"] = deps;
  return out;
}

}  // namespace twin::lm
