// SNLI three-way classifiers (entailment / neutral / contradiction) with any registered cell, ATR paper
// (Zhang et al. 2018) Appendix A.2.2 / Table 6. Row-vector convention; sequences are time-major [T*B, D]
// (row t*B+b is word t of pair b). Letters: S premise length, T hypothesis length, B batch, E embedding,
// H hidden, A attention, C = 3 labels.
//
// kind "cond": the ATR authors' code (their SNLI model is an RNNSearch decoder reading the hypothesis).
//   premise    h_i = [→h_i ; ←h_i]                                       [S*B, 2H]   (bidirectional cell)
//   init       s_0 = tanh(mean_i(h_i) W_init + b_init)                   [B, H]      (masked mean)
//   hypothesis s̃_j = Cell1(s_{j-1}, x_j)                                 [B, H]
//              α_j = softmax_i(v^T tanh(h_i W_k + b_k + s̃_j W_q))        [B, S]      (premise padding masked)
//              c_j = Σ_i α_ji h_i                                        [B, 2H]
//              s_j = Cell2(s̃_j, c_j)                                     [B, H]
//   output     logits = dropout(s_N) W_o + b_o                           [B, C]      (s_N at each pair's last word)
//
// kind "wbw": word-by-word attention, Rocktäschel et al. (ICLR 2016) "Reasoning about entailment with neural
// attention", §2.3-2.4 (conditional encoding: a second cell with its own parameters reads the hypothesis
// starting from the premise cell's last state; for cells without a memory that state is h, with one (h, c)).
//   premise    Y = Cell_p over the premise                               [S*B, H]
//   hypothesis h_t = Cell_h(h_{t-1}, x_t), h_0 = premise's last state    [B, H]
//              M_t = tanh(Y W^y + (h_t W^h + r_{t-1} W^r) ⊗ 1_S)         [S*B, A]
//              α_t = softmax(M_t w)                                      [B, S]      (premise padding masked)
//              r_t = Yᵀ α_t + tanh(r_{t-1} W^t),  r_0 = 0                [B, H]
//   output     h* = tanh(r_N W^p + h_N W^x)                              [B, H]      (r_N, h_N at the last word)
//              logits = dropout(h*) W_o + b_o                            [B, C]
//   h_t W^h + r_{t-1} W^r is computed as [h_t ; r_{t-1}] [W^h ; W^r] by the shared additive Attention
//   (nn/attention.h, W_q = [W^h ; W^r], no key bias, like the paper's equations).
//
// Both: dropout on the embeddings and before the classifier (0.15 in the paper); padding never influences a
// real example (masked attention, masked mean, states carried through padding; tests/test_snli_model.cc).
// Option exact_match (not in the paper): x_t = [dropout(e_t) ; em_t], em_t = 1 when word t occurs in the other
// sentence of its pair, as the EM feature of DrQA (Chen et al., ACL 2017) and DIIN (Gong et al., ICLR 2018).
// It lets a model trained on a few thousand pairs (SICK) see word overlap, which from-scratch embeddings
// do not learn to match from so little data.
#pragma once
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/rng.h"
#include "data/batch.h"
#include "nn/attention.h"
#include "nn/embedding.h"
#include "nn/linear.h"
#include "rnn/cell.h"

namespace twin {
class JsonReader;
}

namespace twin::snli {

inline constexpr int kSnliModelLabels = 3;   // = kNumLabels of snli_data.h (entailment, neutral, contradiction)

// The two models of the top of this file; key "kind".
enum class SnliKind { kCond, kWbw };
inline constexpr NameTable<SnliKind, 2> kSnliKindNames{{{SnliKind::kCond, "cond"}, {SnliKind::kWbw, "wbw"}}};

struct SnliModelConfig {
  SnliKind kind = SnliKind::kCond;   // cond (the ATR authors' code) | wbw (Rocktäschel et al. 2016)
  int embed = 300;                // E
  CellConfig cell;                // every recurrent cell (hidden = H, 300 in the paper)
  int attn_dim = 0;               // A; 0 = H
  double dropout = 0.15;          // on embeddings and before the classifier (the paper)
  double init_scale = 0.08;       // uniform(-a, a) for embeddings, attention, linear layers
  bool freeze_embeddings = false; // fixed (GloVe) embeddings, as in the paper
  bool exact_match = false;       // append the exact-match feature to every word's embedding (E+1 inputs)
};
const ConfigTable<SnliModelConfig>& snli_model_table();   // snli_model_config.cc
SnliModelConfig parse_snli_model(JsonReader& r);
nlohmann::json to_json(const SnliModelConfig& c);

// The exact-match feature of the words of `a` ([T_a*B, 1], time-major): 1 where the word's id occurs among the
// real words of the other sentence `b` of the same pair, else 0 (padding included). kPadId and kUnkId
// (data/vocab.h) never match: two unknown words are not known to be equal.
Mat exact_match_feature(const SeqBatch& a, const SeqBatch& b);

class SnliModel {
 public:
  SnliModel(const SnliModelConfig& cfg, Index vocab, ParamStore& store);
  ~SnliModel();

  Param& embeddings() const { return emb_.table(); }   // load GloVe rows, freeze
  Embedding& embedding() { return emb_; }             // load pretrained (GloVe) rows
  // premise [S, B], hypothesis [T, B] (same B) -> [B, 3]. Dropout only when g is in training mode.
  // attention, when given, receives α_j [B, S] of every hypothesis step j (T matrices), for inspection and tests.
  Var logits(Graph& g, const SeqBatch& premise, const SeqBatch& hypothesis, Rng& rng,
             std::vector<Mat>* attention = nullptr) const;
  // Cross-entropy summed over the batch, [1, 1]. labels: B ids in [0, 3).
  Var loss(Graph& g, const SeqBatch& premise, const SeqBatch& hypothesis, const Ids& labels, Rng& rng) const;

  const SnliModelConfig& config() const { return cfg_; }
  Index vocab() const { return emb_.vocab_size(); }

 private:
  Var drop(Var x, Rng& rng) const;
  Var inputs(Graph& g, const SeqBatch& s, const SeqBatch& other, Rng& rng) const;   // [T*B, E(+1)]
  Var features_cond(Graph& g, const SeqBatch& premise, const SeqBatch& hypothesis, Rng& rng,
                    std::vector<Mat>* attention) const;   // s_N
  Var features_wbw(Graph& g, const SeqBatch& premise, const SeqBatch& hypothesis, Rng& rng,
                   std::vector<Mat>* attention) const;    // h*

  SnliModelConfig cfg_;
  Embedding emb_;
  // cond: enc_fwd_/enc_bwd_ premise encoder, cell1_/cell2_ the two-level hypothesis reader, init_ = W_init.
  // wbw: enc_fwd_ = Cell_p, cell1_ = Cell_h; w_t_ = W^t, w_p_ = W^p, w_x_ = W^x.
  std::unique_ptr<Cell> enc_fwd_, enc_bwd_, cell1_, cell2_;
  Linear init_, w_t_, w_p_, w_x_, out_;
  Attention attn_;
};

}  // namespace twin::snli
