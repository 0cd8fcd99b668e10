// The NER tagger of Lample et al. (2016), "Neural Architectures for Named Entity Recognition" (the LSTM-CRF),
// with any registered cell in place of the LSTMs, as the LRN paper (Zhang & Sennrich 2019, Table 6) compares
// cells on CoNLL-2003:
//   c_w  = [→RNN_c(E_c[chars(w)])_last ; ←RNN_c(E_c[chars(w)])_first]   [N, 2H_c]  character BiRNN per word
//   x_i  = dropout([E_w[w_i] ; c_{w_i}])                                  [T*B, D_w + 2H_c]
//   h_i  = [→RNN(x)_i ; ←RNN(x)_i]                                        [T*B, 2H]
//   o_i  = h_i W_o + b_o                                                  [T*B, K]   emission scores over the tags
//   s(y) = start[y_1] + Σ_i o_i[y_i] + Σ_i A[y_{i-1}, y_i] + end[y_T]     linear-chain CRF (core/nn/crf.h)
// trained with the CRF negative log-likelihood (the paper) or the structured hinge (as CWS), decoded by Viterbi.
// Lample et al.: D_w 100, character embeddings 25, H_c 25, H 100, dropout 0.5, SGD lr 0.01, clip 5, IOBES.
#pragma once
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ner_batch.h"
#include "nn/crf.h"
#include "nn/embedding.h"
#include "nn/linear.h"
#include "rnn/cell.h"

namespace twin {
class JsonReader;
}

namespace twin::ner {

struct NerModelConfig {
  int word_embed = 100;
  bool freeze_embeddings = false; // fixed word embeddings (pretrained, data.embeddings); characters always train
  int char_embed = 25;            // 0 = no character BiRNN
  CellConfig char_cell;           // hidden 25 per direction in the paper
  CellConfig cell;                // hidden 100 per direction in the paper
  double init_scale = 0.08;       // uniform(-a, a) for embeddings and the emission layer
  double dropout = 0.5;           // on the word BiRNN's input
  CrfObjective objective = CrfObjective::kNll;   // the paper; or the hinge (max-margin with Hamming cost eta)
  double eta = 1.0;
};
const ConfigTable<NerModelConfig>& ner_model_table();
NerModelConfig parse_ner_model(JsonReader& r);
nlohmann::json to_json(const NerModelConfig& c);

class NerModel {
 public:
  NerModel(const NerModelConfig& cfg, Index word_vocab, Index char_vocab, int num_tags, ParamStore& store);

  Var emissions(Graph& g, const NerBatch& b, Rng& rng) const;   // [T*B, K], time-major
  Var loss(Graph& g, const NerBatch& b, Rng& rng) const;        // summed over the batch's sentences, [1, 1]
  std::vector<std::vector<int>> decode(const NerBatch& b) const;   // inference mode
  Embedding& word_embedding() { return words_; }
  const NerModelConfig& config() const { return cfg_; }

 private:
  Var char_features(Graph& g, const NerBatch& b) const;   // [T*B, 2H_c], zero rows at padding slots

  NerModelConfig cfg_;
  int num_tags_;
  Embedding words_, chars_;
  std::unique_ptr<Cell> char_fwd_, char_bwd_, fwd_, bwd_;
  Linear out_;
  Param* trans_ = nullptr;
  Param* start_ = nullptr;
  Param* end_ = nullptr;
};

}  // namespace twin::ner
