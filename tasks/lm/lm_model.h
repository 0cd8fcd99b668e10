// Word-level RNN language model (Zaremba et al. 2014 layout; the ATR/LRN repositories' PTB models):
//   x = E[w]                       [T*B, E]
//   h^l = Cell^l(dropout(h^{l-1})) for l = 1..L, state carried across BPTT windows (detached)
//   logits = dropout(h^L) W + b    [T*B, V], or tied: dropout(h^L) E^T + b (needs H = E)
#pragma once
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "base/config_table.h"
#include "base/rng.h"
#include "nn/embedding.h"
#include "nn/linear.h"
#include "rnn/cell.h"
#include "rnn/rnn.h"

namespace twin {
class JsonReader;
}

namespace twin::lm {

enum class LmDropout { kStandard, kVariational };
inline constexpr NameTable<LmDropout, 2> kLmDropoutNames{
    {{LmDropout::kStandard, "standard"}, {LmDropout::kVariational, "variational"}}};

struct LmModelConfig {
  int embed = 200;
  int layers = 2;
  CellConfig cell;
  double dropout = 0.0;               // on the embeddings, between layers and before the softmax
  LmDropout dropout_kind = LmDropout::kStandard;   // a fresh mask per entry, or one per window (variational)
  bool tie = false;                   // output layer shares the embedding matrix
  double init_scale = 0.1;            // uniform(-a, a) for embedding and softmax (cells use cell.init_scale)
};
const ConfigTable<LmModelConfig>& lm_model_table();
LmModelConfig parse_lm_model(JsonReader& r);
nlohmann::json to_json(const LmModelConfig& c);

// Carried state: plain matrices per layer, re-entered as constants each window (detaching by construction).
struct LmState {
  std::vector<Mat> h, c;
  bool empty() const { return h.empty(); }
};

class LmModel {
 public:
  LmModel(const LmModelConfig& cfg, Index vocab, ParamStore& store);

  // Summed cross-entropy over the window as a [1,1] Var. input/target: [T, B]. `state` is read (zeros when
  // empty) and replaced by the final states. rng: dropout (training graphs only).
  // gates: when non-null, receives the top layer's recorded gates.
  Var loss(Graph& g, const IdMat& input, const IdMat& target, LmState& state, Rng& rng,
           std::map<std::string, std::vector<Mat>>* gates = nullptr) const;
  // The top layer's states [T*B, H] (dropout applied when training); same state and gates contract as loss().
  Var forward(Graph& g, const IdMat& input, LmState& state, Rng& rng,
              std::map<std::string, std::vector<Mat>>* gates = nullptr) const;
  // Inference: -log p(target) of every position, [T, B] (target(t, b)'s), natural log; same state contract.
  Mat token_nll(Graph& g, const IdMat& input, const IdMat& target, LmState& state) const;
  const LmModelConfig& config() const { return cfg_; }
  const Cell& cell(int layer) const { return *cells_[static_cast<size_t>(layer)]; }

 private:
  Var drop(Var x, Index batch, Rng& rng) const;

  LmModelConfig cfg_;
  Embedding emb_;
  std::vector<std::unique_ptr<Cell>> cells_;
  Linear out_;            // untied
  Param* out_bias_ = nullptr;   // tied: bias only
};

}  // namespace twin::lm
