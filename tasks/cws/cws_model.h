// The ATR paper's CWS model (Appendix A.2.3, after Chen et al. 2015; the authors' code):
//   e_i  = dropout(E_c[c_i] (; E_b[c_i c_{i+1}]))                 [T*B, D]   character (+ bigram) embeddings
//   h_i  = [→RNN(e)_i ; ←RNN(e)_i]                                 [T*B, 2H]  any registered cell, H = 300
//   o_i  = dropout(h_i) W_o + b_o                                  [T*B, 4]   emission scores over B, M, E, S
//   s(y) = Σ_i o_i[y_i] + Σ_i A[y_{i-1}, y_i]                      linear-chain CRF, learned A [4, 4]
// trained with the structured hinge max_y' [s(y') + η·Hamming(y', y)] − s(y) (η = 0.2) or the CRF negative
// log-likelihood, decoded by Viterbi (optionally constrained to the BMES grammar).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "nn/crf.h"
#include "cws_data.h"
#include "nn/embedding.h"
#include "nn/linear.h"
#include "rnn/cell.h"

namespace twin::cws {

struct CwsModelConfig {
  int embed = 300;                      // character embedding size
  int bigram_embed = 0;                 // bigram embedding size when data.bigrams (0 = embed)
  CellConfig cell;                      // hidden = 300 per direction in the paper
  double init_scale = 0.08;             // uniform(-a, a) for embeddings and the emission layer
  double dropout_embed = 0.2;
  double dropout_crf = 0.2;             // on the BiRNN output, before the emission layer
  CrfObjective objective = CrfObjective::kHinge;   // max-margin (the paper) or CRF log-likelihood
  double eta = 0.2;                     // the hinge's Hamming cost per wrong tag
  bool start_end = false;               // learned start/end transitions (the authors' code has none)
  bool constrain = false;               // decode (and cost-augment) only BMES-legal tag sequences
};
const ConfigTable<CwsModelConfig>& cws_model_table();
CwsModelConfig parse_cws_model(JsonReader& r);
nlohmann::json to_json(const CwsModelConfig& c);

class CwsModel {
 public:
  CwsModel(const CwsModelConfig& cfg, Index char_vocab, Index bigram_vocab, ParamStore& store);

  Var emissions(Graph& g, const CwsBatch& b, Rng& rng) const;    // [T*B, 4], time-major
  // The objective summed over the batch's sentences, [1, 1].
  Var loss(Graph& g, const CwsBatch& b, Rng& rng) const;
  std::vector<std::vector<int>> decode(const CwsBatch& b) const;  // inference mode, one tag row per sentence
  const CwsModelConfig& config() const { return cfg_; }

 private:
  Var drop(Var x, double p, Rng& rng) const;
  struct CrfParams {
    Var trans, start, end;
  };
  CrfParams crf_params(Graph& g) const;

  CwsModelConfig cfg_;
  Embedding chars_, bigrams_;
  std::unique_ptr<Cell> fwd_, bwd_;
  Linear out_;
  Param* trans_ = nullptr;
  Param* start_ = nullptr;
  Param* end_ = nullptr;
  CrfConstraint constraint_;
};

}  // namespace twin::cws
