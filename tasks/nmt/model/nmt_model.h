// The NMT model interface the trainer, the translator (beam search), the gate analysis and the CLI use, and
// its two kinds (key model.kind):
//   "rnnsearch"  RNNSearch as the ATR paper builds it (model/rnnsearch.h), any registered cell;
//   "dtmt"       DTMT, Meng & Zhang (AAAI 2019): deep transitions in the encoder, a query transition,
//                multi-head attention and a decoder transition (model/dtmt.h).
// Both share the embeddings, the softmax layer and the training loss (this file); each has its encoder,
// decoder step and readout. A decoder step reads y_{j-1}'s projection, the previous state and the encoder's
// attention memory (keys K [S*B, A], values V [S*B, D], kept as matrices by the beam search) and returns the
// new state, the top state s_j and the context c_j, from which the readout predicts y_j.
#pragma once
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "base/rng.h"
#include "corpus/nmt_batch.h"
#include "nn/attention.h"
#include "nn/embedding.h"
#include "nn/linear.h"
#include "rnn/cell.h"

namespace twin {
class JsonReader;
}

namespace twin::nmt {

// The encoder of RNNSearch; key "encoder".
enum class NmtEncoder { kBidi, kCa };
inline constexpr NameTable<NmtEncoder, 2> kNmtEncoderNames{{{NmtEncoder::kBidi, "bidi"}, {NmtEncoder::kCa, "ca"}}};

// The model kind; key "kind".
enum class NmtKind { kRnnSearch, kDtmt };
inline constexpr NameTable<NmtKind, 2> kNmtKindNames{{{NmtKind::kRnnSearch, "rnnsearch"}, {NmtKind::kDtmt, "dtmt"}}};

// DTMT's depths (the number of T-GRU transitions after the first cell of each deep-transition step), heads and
// the L-GRU's linear transformation; section "dtmt". Defaults: the authors' released code (DTMT_InDec:
// DTMTCell = L-GRU + 4 T-GRUs for the encoder, the query and the decoder transition; attention_mhead with 16
// heads).
struct DtmtConfig {
  int encoder_transitions = 4;      // L_s
  int query_transitions = 4;        // L_q
  int decoder_transitions = 4;      // L_d
  int heads = 16;                   // n, divides A and D = 2H
  bool linear_transform = true;     // H(x) of L-GRU; false: the first cell is a GRU (L-GRU without l ⊙ H(x))
};

struct NmtModelConfig {
  NmtKind kind = NmtKind::kRnnSearch;
  int embed = 256;                  // E, source and target
  CellConfig cell;                  // every recurrent cell (hidden = H); dtmt: the first cell of each transition
  int attn_dim = 0;                 // A; 0 = H
  int readout = 0;                  // R; 0 = E
  NmtEncoder encoder = NmtEncoder::kBidi;
  int encoder_layers = 1;
  int decoder_layers = 1;           // 1 = the paper's two-level decoder
  double dropout_embed = 0.0;       // on source and target embeddings
  double dropout_readout = 0.0;     // on t_j before the softmax
  double label_smoothing = 0.0;
  bool tie_target = false;          // softmax weights = target embedding (needs readout == embed)
  double init_scale = 0.08;         // uniform(-a, a) for embeddings, attention, readout (the authors' code)
  DtmtConfig dtmt;                  // model.kind = "dtmt" only
};
const ConfigTable<NmtModelConfig>& nmt_model_table();
NmtModelConfig parse_nmt_model(JsonReader& r);
nlohmann::json to_json(const NmtModelConfig& c);

// Encoder output for one batch, as graph values (training) or kept as matrices (decoding).
struct Encoded {
  AttnKeys keys;                    // K [S*B, A], V [S*B, D], mask [B, S] (rnnsearch: K = tanh(h) W_k, V = tanh(h))
  std::vector<CellState> init;      // per decoder layer, [B, H]
};

// Decoder state of every layer.
using DecState = std::vector<CellState>;

struct DecOut {
  DecState state;
  Var s;        // top layer h [B, H]
  Var ctx;      // c_j [B, D]
  Var alpha;    // [B, S] (dtmt: the mean over heads)
};

class NmtModel {
 public:
  virtual ~NmtModel() = default;

  virtual Encoded encode(Graph& g, const SeqBatch& src, Rng& rng) const = 0;
  // The first decoder cell's input projection of target embeddings [N, E] -> [N, k*H]: one GEMM for all steps
  // in training.
  virtual Var project_target(Var y) const = 0;
  // One decoder step. xp1: project_target() rows of the previous tokens [B, k*H]. gates1/gates2: optional
  // records of the gates of the decoder's first and second level.
  virtual DecOut step(const Encoded& enc, Var xp1, const DecState& prev, GateRecord* gates1 = nullptr,
                      GateRecord* gates2 = nullptr) const = 0;
  virtual Var readout(Var y_prev, Var s, Var ctx, Rng& rng) const = 0;   // t_j [N, R] (dropout when training)
  virtual int layers() const = 0;                                        // decoder states in DecState

  Var logits(Var y_prev, Var s, Var ctx, Rng& rng) const;    // [N, V_tgt]
  // Summed cross-entropy over the batch's target tokens, [1, 1], label-smoothed by `label_smoothing`
  // (training passes the config's value, perplexity 0).
  Var loss(Graph& g, const NmtBatch& batch, Rng& rng, double label_smoothing) const;
  Var embed_target(Graph& g, const Ids& ids, Rng& rng) const;

  const NmtModelConfig& config() const { return cfg_; }
  Index src_vocab() const { return src_emb_.vocab_size(); }
  Index tgt_vocab() const { return tgt_emb_.vocab_size(); }
  int hidden() const { return cfg_.cell.hidden; }

 protected:
  // Adds the source and target embeddings; the derived model adds its own parameters, then
  // add_readout_and_output() (the parameter store's order is the construction order).
  NmtModel(const NmtModelConfig& cfg, Index src_vocab, Index tgt_vocab, ParamStore& store);
  // The deep-output readout both kinds share, t_j = tanh(y_{j-1} W_y + s' W_s + c_j W_c + b) [N, R] (RNNSearch:
  // s' = tanh(s_j), DTMT: s' = s_j), then the softmax layer: adds nmt/read/y, nmt/read/s, nmt/read/c and
  // nmt/out (or the tied bias), in that order. ctx_dim: the width D of c_j.
  void add_readout_and_output(Index tgt_vocab, Index ctx_dim, ParamStore& store);
  Var readout_of(Var y_prev, Var s_term, Var ctx, Rng& rng) const;   // t_j from s' (dropout when training)
  Var drop(Var x, double p, Rng& rng) const;

  NmtModelConfig cfg_;
  Embedding src_emb_, tgt_emb_;

 private:
  Linear read_y_, read_s_, read_c_;
  Linear out_;
  Param* out_bias_ = nullptr;                                // tied: bias only
};

// The model of cfg.kind.
std::unique_ptr<NmtModel> make_nmt_model(const NmtModelConfig& cfg, Index src_vocab, Index tgt_vocab, ParamStore& store);

}  // namespace twin::nmt
