#include "classify_memory.h"

#include <cmath>

#include "data/vocab.h"
#include "ops/ops.h"
#include "rnn/cell_factory.h"
#include "rnn/gates.h"
#include "rnn/rnn.h"

namespace twin::classify {

namespace {
// The registered cells the analysis can read, from their traits at their defaults: "atr or lrn".
std::string twin_gated_cells() {
  std::vector<std::string> names;
  for (const std::string& type : registered_cell_names()) {
    CellConfig c;
    c.type = type;
    if (cell_traits(c).twin_gated) names.push_back(type);
  }
  std::string out;
  for (size_t k = 0; k < names.size(); ++k) out += (k == 0 ? "" : k + 1 == names.size() ? " or " : ", ") + names[k];
  return out;
}
}  // namespace

std::string memory_unsupported_reason(const ClassifyModelConfig& c) {
  if (c.encoder != Encoder::kRnn)
    return "the memory analysis needs the rnn encoder, not " + std::string(name_of(kEncoderNames, c.encoder));
  if (c.bidirectional) return "the memory analysis needs a unidirectional encoder (model.bidirectional = false)";
  if (!cell_traits(c.cell).twin_gated)
    return "the memory analysis needs a twin-gated cell (" + twin_gated_cells() + "), not " + c.cell.type;
  return "";
}

bool memory_is_exact(const ClassifyModelConfig& c) {
  if (!memory_unsupported_reason(c).empty()) return false;
  return cell_traits(c.cell).output == CellOutput::kIdentity;   // by default ATR's is, LRN's is tanh
}

MemoryWeights memory_weights(const ClassifyModel& m, const Ids& sentence) {
  const std::string why = memory_unsupported_reason(m.config());
  TW_CHECK(why.empty(), why);
  TW_CHECK(!sentence.empty(), "memory_weights: an empty sentence");
  const Cell& cell = *m.forward_cell();
  const Index T = static_cast<Index>(sentence.size()), H = cell.hidden_dim();
  Graph g(Mode::kInfer);
  const SeqBatch b = pad_batch(std::vector<Ids>{sentence}, kPadId);
  Var x = m.embed(g, b);                                                         // [T, E] (B = 1)
  SeqOut run = run_rnn(cell, x, b.mask, 1, Dir::kForward, {}, /*record_gates=*/true);
  const std::vector<Mat>& i = run.gates.at("i");
  const std::vector<Mat>& f = run.gates.at("f");
  TW_CHECK(static_cast<Index>(i.size()) == T && static_cast<Index>(f.size()) == T, "memory_weights: ", i.size(),
           " recorded steps for a sentence of ", T);
  // The values v_k, from the same whole-sequence projection run_rnn used (ATR: p; LRN: v of [q k v]).
  const CellTraits traits = cell_traits(m.config().cell);
  const Mat xp = cell.project_inputs(x).val();                                  // [T, k*H]
  Mat v = xp.middleCols(traits.value_block * H, H);                             // [T, H]
  if (traits.value_tanh) v = v.array().tanh().matrix();
  std::vector<Mat> vs(static_cast<size_t>(T));
  for (Index k = 0; k < T; ++k) vs[static_cast<size_t>(k)] = v.row(k);

  MemoryWeights out;
  const std::vector<Mat> gk = contribution_weights(i, f, T - 1, Dir::kForward);  // T x [1, H]
  out.weights_units.resize(T, H);
  Eigen::Matrix<double, 1, Eigen::Dynamic> sum = Eigen::Matrix<double, 1, Eigen::Dynamic>::Zero(H);
  for (Index k = 0; k < T; ++k) {
    const Mat& w = gk[static_cast<size_t>(k)];
    out.weights_units.row(k) = w.row(0);
    out.weights.push_back(static_cast<double>(w.row(0).mean()));
    sum += (w.row(0).cast<double>().array() * v.row(k).cast<double>().array()).matrix();
    out.input_gate.push_back(static_cast<double>(i[static_cast<size_t>(k)].row(0).mean()));
    out.forget_gate.push_back(static_cast<double>(f[static_cast<size_t>(k)].row(0).mean()));
  }
  out.weights_by_step = dependency_matrix(i, f, 0, T, Dir::kForward);
  out.final_state = run.last.h.val();
  out.reconstructed = sum.cast<Real>();
  const Eigen::Matrix<double, 1, Eigen::Dynamic> h = out.final_state.row(0).cast<double>();
  const double diff = (sum - h).norm(), norm = h.norm();
  out.rel_error = norm > 0 ? diff / norm : diff;
  out.max_abs_error = (sum - h).cwiseAbs().maxCoeff();
  return out;
}

}  // namespace twin::classify
