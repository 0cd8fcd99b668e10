// Sentence classifiers: embeddings -> encoder -> pooling -> dropout -> linear -> softmax, over any registered
// recurrent cell or a self-attention block. Row-vector convention; sequences are time-major [T*B, D] (row
// t*B+b is word t of sentence b). Letters: T length, B batch, E embedding, H hidden, F pooled width, A
// attention, C labels.
//
//   x_t = dropout_e(E[w_t])                                                   [T*B, E]
//   encoder "rnn":  →h_t = Cell(→h_{t-1}, x_t)                                [T*B, H]
//                   bidirectional: h_t = [→h_t ; ←h_t]                        [T*B, 2H]
//   encoder "self_attention": h = SelfAttentionEncoder(x) (nn/self_attention.h; position information
//                   sinusoidal, learned or relative; D = E)                   [T*B, E]
//   pooling  "last"       (rnn only) s = →h_n (the state after the last real word), bidirectional
//                         [→h_n ; ←h_1] (the backward cell's state after reading the whole sentence)
//            "mean"       s = Σ_t m_t h_t / Σ_t m_t                            (masked mean)
//            "attentive"  a learned query over the states, padding masked:
//                         additive (Yang et al. 2016): e_t = tanh(h_t W_a + b_a) v      W_a [F,A], v [A,1]
//                         dot:                         e_t = h_t u / √F                 u [F,1]
//                         α = softmax_t(e) over the real words,  s = Σ_t α_t h_t       [B, F]
//   logits = dropout(s) W_o + b_o                                             [B, C]
// Padding never influences a real example: the RNN carries its state through padded steps, the self-attention
// block gives padded keys zero weight, mean and attentive pooling mask them (tests/test_classify_model.cc).
// Parameters: V·E + encoder (each cell's expected_params, or SelfAttentionEncoder::expected_params)
//   + pooling (additive F·A + 2A, dot F) + F·C + C   (expected_params below).
#pragma once
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/rng.h"
#include "data/batch.h"
#include "nn/embedding.h"
#include "nn/linear.h"
#include "nn/self_attention.h"
#include "rnn/cell.h"

namespace twin {
class JsonReader;
}

namespace twin::classify {

// The choices of the model section (the formulas above), each with its one name table; keys "encoder",
// "pooling" and "attention".
enum class Encoder { kRnn, kSelfAttention };
inline constexpr NameTable<Encoder, 2> kEncoderNames{{{Encoder::kRnn, "rnn"},
                                                      {Encoder::kSelfAttention, "self_attention"}}};
enum class Pooling { kLast, kMean, kAttentive };
inline constexpr NameTable<Pooling, 3> kPoolingNames{{{Pooling::kLast, "last"},
                                                      {Pooling::kMean, "mean"},
                                                      {Pooling::kAttentive, "attentive"}}};
enum class PoolScore { kAdditive, kDot };
inline constexpr NameTable<PoolScore, 2> kPoolScoreNames{{{PoolScore::kAdditive, "additive"},
                                                          {PoolScore::kDot, "dot"}}};

struct ClassifyModelConfig {
  int embed = 300;                      // E
  Encoder encoder = Encoder::kRnn;
  CellConfig cell;                      // rnn: the cell (hidden = H)
  bool bidirectional = false;           // rnn: a forward and a backward cell, states concatenated
  Pooling pooling = Pooling::kLast;     // last: rnn only
  PoolScore attention = PoolScore::kAdditive;   // attentive pooling's score
  int attn_dim = 0;                     // additive attentive pooling: A; 0 = F
  SelfAttentionConfig self_attention;   // self_attention: heads, ff_dim, layers, position, max_len, clip_k,
                                        // dropout (dim is set to E by the model)
  double dropout_embed = 0.0;           // on the word embeddings
  double dropout = 0.5;                 // on the pooled vector, before the classifier
  double init_scale = 0.08;             // uniform(-a, a) for embeddings, pooling, classifier, self-attention
  bool freeze_embeddings = false;       // fixed (pretrained) embeddings
};
const ConfigTable<ClassifyModelConfig>& classify_model_table();   // classify_model_config.cc
ClassifyModelConfig parse_classify_model(JsonReader& r);
nlohmann::json to_json(const ClassifyModelConfig& c);

class ClassifyModel {
 public:
  ClassifyModel(const ClassifyModelConfig& cfg, Index vocab, int num_labels, ParamStore& store);
  ~ClassifyModel();

  // text: [T, B] ids with its mask -> logits [B, C]. Dropout only when g is in training mode. pool_weights,
  // when given and the pooling is attentive, receives α [B, T] (zero on padding), for inspection and tests.
  Var logits(Graph& g, const SeqBatch& text, Rng& rng, Mat* pool_weights = nullptr) const;
  // The pooled sentence vector s [B, F] (before the classifier's dropout).
  Var features(Graph& g, const SeqBatch& text, Rng& rng, Mat* pool_weights = nullptr) const;
  // Cross-entropy summed over the batch, [1, 1]. labels: B ids in [0, C).
  Var loss(Graph& g, const SeqBatch& text, const Ids& labels, Rng& rng) const;

  Param& embeddings() const { return emb_.table(); }
  Embedding& embedding() { return emb_; }
  Var embed(Graph& g, const SeqBatch& text) const { return emb_.apply(g, text.ids); }   // [T*B, E], no dropout
  // The forward cell of the rnn encoder (nullptr for self-attention); the memory analysis reads it.
  const Cell* forward_cell() const { return fwd_.get(); }
  const ClassifyModelConfig& config() const { return cfg_; }
  int num_labels() const { return num_labels_; }
  Index feature_dim() const { return feat_; }
  Index vocab() const { return emb_.vocab_size(); }
  // The closed-form parameter count of this configuration (see the header comment).
  static Index expected_params(const ClassifyModelConfig& cfg, Index vocab, int num_labels);

 private:
  Var drop(Var x, double p, Rng& rng) const;
  Var pool(Var states, const SeqBatch& text, Mat* pool_weights) const;

  ClassifyModelConfig cfg_;
  int num_labels_ = 0;
  Index feat_ = 0;   // F
  Embedding emb_;
  std::unique_ptr<Cell> fwd_, bwd_;
  std::unique_ptr<SelfAttentionEncoder> sa_;
  Linear pool_w_, out_;
  Param* pool_v_ = nullptr;   // additive: v [A, 1]; dot: u [F, 1]
};

}  // namespace twin::classify
