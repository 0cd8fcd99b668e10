#include "model/nmt_gates.h"

#include <algorithm>

#include "ops/ops.h"
#include "rnn/cell_factory.h"
#include "rnn/gate_stats.h"
#include "rnn/gates.h"

namespace twin::nmt {

namespace {
void append(GateSeqs& seqs, const GateRecord& rec) {
  for (const auto& [name, m] : rec.values) seqs[name].push_back(m);
}
}  // namespace

nlohmann::json decoder_gate_statistics(const NmtModel& model, const Parallel& data, const Subword& tgt,
                                       int dependency_sentences, int batch) {
  const std::string type = model.config().cell.type;
  // A twin-gated RNNSearch decoder's i, f unroll into dependencies (DTMT's T-GRUs in between do not).
  const bool twin_gated = model.config().kind == NmtKind::kRnnSearch && cell_traits(model.config().cell).twin_gated;
  GateAccumulator acc1, acc2;
  nlohmann::json deps = nlohmann::json::array();
  Rng unused(0);
  Graph g(Mode::kInfer);
  for (size_t s0 = 0; s0 < data.src.size(); s0 += static_cast<size_t>(batch)) {
    std::vector<int> index;
    for (size_t i = s0; i < std::min(data.src.size(), s0 + static_cast<size_t>(batch)); ++i)
      index.push_back(static_cast<int>(i));
    const NmtBatch b = make_nmt_batch(data, index);
    const Index B = b.src.size(), T = b.tgt_in.steps();
    g.clear();
    Encoded enc = model.encode(g, b.src, unused);
    Var xp = model.project_target(model.embed_target(g, b.tgt_in.flat(), unused));
    DecState st = enc.init;
    GateSeqs gates1, gates2;
    for (Index j = 0; j < T; ++j) {
      GateRecord r1, r2;
      DecOut o = model.step(enc, slice_rows(xp, j * B, B), st, &r1, &r2);
      st = std::move(o.state);
      append(gates1, r1);
      append(gates2, r2);
    }
    if (gates1.empty()) return {{"cell", type}, {"note", "this cell records no gates"}};
    acc1.add(gates1, b.tgt_out.lengths);
    acc2.add(gates2, b.tgt_out.lengths);
    if (!twin_gated) continue;
    std::vector<Mat> i_eff, f_eff;   // the two levels' gate products (see the header)
    for (Index j = 0; j < T; ++j) {
      const auto t = static_cast<size_t>(j);
      i_eff.push_back(gates2["f"][t].cwiseProduct(gates1["i"][t]));
      f_eff.push_back(gates2["f"][t].cwiseProduct(gates1["f"][t]));
    }
    for (Index k = 0; k < B && static_cast<int>(deps.size()) < dependency_sentences; ++k) {
      const Index len = b.tgt_out.lengths[static_cast<size_t>(k)];
      const Mat m = dependency_matrix(i_eff, f_eff, k, len);
      nlohmann::json rows = nlohmann::json::array();
      for (Index t = 0; t < len; ++t) rows.push_back(std::vector<double>(m.row(t).data(), m.row(t).data() + len));
      std::vector<std::string> inputs;   // the word each step reads: <s> y_1 ... y_{n-1}
      for (Index t = 0; t < len; ++t) inputs.push_back(tgt.piece(b.tgt_in.ids(t, k)));
      deps.push_back({{"inputs", inputs}, {"weights", rows}});
    }
  }
  nlohmann::json out = {{"cell", type},
                        {"sentences", data.src.size()},
                        {"input", "reference (teacher forcing)"},
                        {"cell1", acc1.summary()},
                        {"cell2", acc2.summary()}};
  if (twin_gated) out["dependencies"] = deps;
  return out;
}

}  // namespace twin::nmt
