// RNNSearch (Bahdanau et al. 2015) as the ATR paper builds it (Zhang et al. 2018, Appendix A.1, Eq. 11-13),
// with any registered cell:
//   encoder   h_i = [→h_i ; ←h_i]                                   bidi: [S*B, 2H]
//             CA (Zhang et al. 2017b): →h_i over x_i, then ←h_i over [x_i ; →h_i]; h_i = ←h_i   [S*B, H]
//             deep (GNMT-style, Wu et al. 2016): layers 2.. are forward cells over the layer below, residual
//             when the widths agree
//   init      s_0 = tanh(mean_i(h_i) W_init + b_init)                 [B, H]
//   decoder   s̃_j = Cell1(s_{j-1}, y_{j-1})                           [B, H]
//             c_j = Σ_i α_ji tanh(h_i),  α_j = softmax_i(v^T tanh(tanh(h_i) W_k + s̃_j W_q))   [B, D]
//             s_j = Cell2(s̃_j, c_j)                                   [B, H]
//             deep: s^l_j = Cell_l(s^l_{j-1}, [s^{l-1}_j ; c_j]) + s^{l-1}_j for l = 2..L
//   readout   t_j = tanh(y_{j-1} W_y + tanh(s_j) W_s + c_j W_c + b)    [B, R]   (Eq. 12's g, Nematus' deep output)
//             p(y_j) = softmax(dropout(t_j) W_o + b_o), or tied: t_j E_tgt^T + b_o (needs R = E)
// Cells with a memory (LSTM, RAN, SRU) carry c through Cell1 -> Cell2 as the state pair; c_0 = 0.
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

// The encoder of the top of this file; key "encoder".
enum class NmtEncoder { kBidi, kCa };
inline constexpr NameTable<NmtEncoder, 2> kNmtEncoderNames{{{NmtEncoder::kBidi, "bidi"}, {NmtEncoder::kCa, "ca"}}};

struct NmtModelConfig {
  int embed = 256;                  // E, source and target
  CellConfig cell;                  // every recurrent cell (hidden = H)
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
};
const ConfigTable<NmtModelConfig>& nmt_model_table();
NmtModelConfig parse_nmt_model(JsonReader& r);
nlohmann::json to_json(const NmtModelConfig& c);

// Encoder output for one batch, as graph values (training) or kept as matrices (decoding).
struct Encoded {
  AttnKeys keys;                    // K = tanh(h) W_k [S*B, A], V = tanh(h) [S*B, D], mask [B, S]
  std::vector<CellState> init;      // per decoder layer, [B, H]
};

// Decoder state of every layer: layer 0 is the (Cell1, Cell2) pair's state.
using DecState = std::vector<CellState>;

struct DecOut {
  DecState state;
  Var s;        // top layer h [B, H]
  Var ctx;      // c_j [B, D]
  Var alpha;    // [B, S]
};

class RnnSearch {
 public:
  RnnSearch(const NmtModelConfig& cfg, Index src_vocab, Index tgt_vocab, ParamStore& store);

  Encoded encode(Graph& g, const SeqBatch& src, Rng& rng) const;
  // Cell1's input projection of target embeddings [N, E] -> [N, k*H]: one GEMM for all steps in training.
  Var project_target(Var y) const { return dec1_->project_inputs(y); }
  // One decoder step. xp1: project_target() rows of the previous tokens [B, k*H].
  // gates1/gates2: optional records of Cell1/Cell2's gates.
  DecOut step(const Encoded& enc, Var xp1, const DecState& prev, GateRecord* gates1 = nullptr,
              GateRecord* gates2 = nullptr) const;
  Var readout(Var y_prev, Var s, Var ctx, Rng& rng) const;   // t_j [N, R] (dropout applied when training)
  Var logits(Var y_prev, Var s, Var ctx, Rng& rng) const;    // [N, V_tgt]
  // Summed cross-entropy over the batch's target tokens, [1, 1], label-smoothed by `label_smoothing`
  // (training passes the config's value, perplexity 0).
  Var loss(Graph& g, const NmtBatch& batch, Rng& rng, double label_smoothing) const;
  Var embed_target(Graph& g, const Ids& ids, Rng& rng) const;

  const NmtModelConfig& config() const { return cfg_; }
  Index src_vocab() const { return src_emb_.vocab_size(); }
  Index tgt_vocab() const { return tgt_emb_.vocab_size(); }
  int hidden() const { return cfg_.cell.hidden; }
  int layers() const { return static_cast<int>(1 + dec_extra_.size()); }

 private:
  Var drop(Var x, double p, Rng& rng) const;

  NmtModelConfig cfg_;
  Embedding src_emb_, tgt_emb_;
  std::vector<std::unique_ptr<Cell>> enc_fwd_, enc_bwd_;   // enc_bwd_ has one cell (layer 1)
  Linear init_;
  Attention attn_;
  std::unique_ptr<Cell> dec1_, dec2_;
  std::vector<std::unique_ptr<Cell>> dec_extra_;
  Linear read_y_, read_s_, read_c_, out_;
  Param* out_bias_ = nullptr;                                // tied: bias only
  Index ctx_dim_ = 0;
};

}  // namespace twin::nmt
