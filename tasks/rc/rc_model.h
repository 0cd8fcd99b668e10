// The R-Net reading-comprehension model of the LRN paper (Zhang & Sennrich, ACL 2019, §5.6: "the recurrent cell
// of every RNN swapped, all other hyper-parameters at their defaults"), as its code runs it: the LRN repository's
// rc/rnet/code/model.py on HKUST-KnowComp/R-Net (func.py, config.py), an implementation of Wang et al. (ACL 2017)
// "Gated self-matching networks for reading comprehension and question answering". Row-vector convention;
// sequences are time-major [T*B, D] (row t*B + b is token t of question b). Letters: P passage length Tp, Q question
// length Tq, B batch, L characters per word, E word vectors (GloVe, fixed), c char_dim, C char_hidden, H hidden,
// drop() variational dropout (one mask per sequence, nn/seq_dropout.h) with p = model.dropout = 1 − keep_prob.
//
//   words     e_t = E[w_t]  (fixed: R-Net's word_mat is trainable=False)                      [T*B, E]
//   chars     ch_t = [→C ; ←C] final states of a BiRNN over drop(char embeddings of word t)   [T*B, 2C]
//             (run packed over the words' real characters only: rc_chars.h)
//   inputs    x_t = [e_t ; ch_t]                                                               [T*B, E + 2C]
//   encoder   u = [h^1 ; h^2 ; h^3], h^l = BiRNN_l(drop(h^{l−1})), h^0 = x, the same cells for passage and question,
//             a fresh dropout mask per direction and layer (native_rnn), shared by passage and question (as the
//             LRN code, whose masks are drawn once per encoder)                                 u^P [P*B, 6H], u^Q [Q*B, 6H]
//   gated attention  v^P = BiRNN(GatedDotAttention(u^P over u^Q, question padding masked))      [P*B, 2H]
//   self-matching    h^P = BiRNN(GatedDotAttention(v^P over v^P, passage padding masked))      [P*B, 2H]
//   pointer   r^Q = AttentionPooling(u^Q's top layer, columns [4H, 6H)), dropout ptr_dropout   [B, 2H]
//             logits1, logits2 = PointerNet(r^Q, h^P) (rc_pointer.h)                           [B, P] each
//   loss      Σ_b −log softmax(logits1_b)[start_b] − log softmax(logits2_b)[end_b]  (summed over the batch; the
//             LRN code's reduce_mean is the task's division by B)
//   decoding  argmax over i ≤ j ≤ i + ans_limit of log p1(i) + log p2(j), real positions only (model.py's
//             matrix_band_part(outer, 0, 15) with outer = p1 p2ᵀ, in log space)
// Cells: every BiRNN of the encoder, the gated attention and the self-matching is model.cell (hidden H). The LRN code
// keeps the character RNN and the pointer cell as TensorFlow GRUCells whatever its --cell (model.py: cell_fw =
// GRUCell(char_hidden); func.py: ptr_net's GRUCell): so do we by default (a GRU with the reset before U, as GRUCell,
// glorot-initialised); model.cell_everywhere = true puts model.cell there too. The LRN paper's parameter counts fit
// the default (tests/test_rc_model.cc prints ours).
// Differences from the LRN code, all small: the BiRNNs start from zero states (native_rnn learns its initial
// states, 2H numbers per layer); TF's GRUCell starts its gate biases at 1 (ours at 0); dense layers are
// glorot-uniform as TF's default, the char embeddings N(0, 0.01²) with rows 0 (padding) and 1 (unknown)
// zero, as R-Net's prepro draws them.
// Padding never influences a real position: RNNs carry their state through padding, every attention and
// softmax masks padded positions exactly (tests/test_rc_model.cc).
#pragma once
#include <memory>
#include <string>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "base/rng.h"
#include "nn/attention_pooling.h"
#include "nn/embedding.h"
#include "nn/gated_dot_attention.h"
#include "rc_batch.h"
#include "rc_pointer.h"
#include "rnn/cell.h"

namespace twin {
class JsonReader;
template <class C>
class ConfigTable;
}  // namespace twin

namespace twin::rc {

struct RcModelConfig {
  int word_dim = 300;          // E: the word vectors' size (GloVe 840B 300d in the paper; 6B 100d here)
  int char_dim = 8;            // c: character embedding size (R-Net's char_dim)
  int char_hidden = 100;       // C: each direction of the character RNN (R-Net's char_hidden)
  int layers = 3;              // encoder BiRNN layers, all concatenated (R-Net's num_layers=3, concat_layers=True)
  CellConfig cell = [] {       // every RNN's cell, hidden H = 75 (R-Net's hidden)
    CellConfig c;
    c.type = "gru";
    c.hidden = 75;
    return c;
  }();
  bool cell_everywhere = false;   // false: character RNN and pointer cell are GRUs as in the LRN code
  double dropout = 0.3;           // 1 − keep_prob (0.7) on every RNN's input, the attentions and the char embeddings
  double ptr_dropout = 0.3;       // 1 − ptr_keep_prob (0.7): question pooling and pointer network
  int ans_limit = 15;             // the longest answer decoded: end − start ≤ ans_limit (model.py's band 15)
  bool freeze_words = true;       // the word vectors stay fixed (R-Net: word_mat trainable=False)
};
const ConfigTable<RcModelConfig>& rc_model_table();   // rc_model_config.cc
RcModelConfig parse_rc_model(JsonReader& r);
nlohmann::json to_json(const RcModelConfig& c);

// The best span (i, j), i ≤ j ≤ i + ans_limit, j < len, maximising log_p1[i] + log_p2[j]; ties go to the smallest i,
// then the smallest j. log_p1, log_p2: at least len entries. len ≥ 1.
std::pair<int, int> best_span(const Real* log_p1, const Real* log_p2, Index len, int ans_limit);

class RcModel {
 public:
  // word_vocab rows of word_dim (zero until the task loads pretrained vectors into word_embedding(); rows 0
  // padding and 1 unknown stay zero as R-Net's), char_vocab rows of char_dim. Parameters under "rc/".
  RcModel(const RcModelConfig& cfg, Index word_vocab, Index char_vocab, ParamStore& store);
  ~RcModel();

  Embedding& word_embedding() { return words_; }   // load GloVe rows here (frozen when cfg.freeze_words)

  // logits1, logits2 [B, P] (−1e30 at padded positions). Dropout only when g is training.
  PointerLogits logits(Graph& g, const RcBatch& batch, Rng& rng) const;
  // Cross-entropy of the gold start and end, summed over the B questions, [1, 1]. train = false builds the
  // loss without dropout (g's mode decides the rest).
  Var summed_loss(Graph& g, const RcBatch& batch, Rng& rng, bool train) const;
  // Token spans (start, end), inclusive, of every question, decoded by best_span (an inference graph inside).
  std::vector<std::pair<int, int>> predict_spans(const RcBatch& batch) const;

  const RcModelConfig& config() const { return cfg_; }

  // Memory accounting (rc_tape_memory.cc): while set, every forward pass appends each model part's name and the
  // graph's size where the part begins (summed_loss appends "loss" after the pointer network).
  using PartMarks = std::vector<std::pair<std::string, size_t>>;
  void set_part_marks(PartMarks* marks) { marks_ = marks; }

 private:
  struct BiLayer {
    std::unique_ptr<Cell> fwd, bwd;
  };
  BiLayer make_bi(const CellConfig& cell, int input_dim, ParamStore& store, const std::string& scope) const;
  Var chars(Graph& g, const std::vector<int>& ids, Index words, Index word_len, Real p, Rng& rng) const;
  Var birnn(const BiLayer& l, Var x, const Mat& mask, Index batch, const Mat& mask_fwd, const Mat& mask_bwd) const;
  PointerLogits forward(Graph& g, const RcBatch& batch, Rng& rng, bool train) const;

  RcModelConfig cfg_;
  Embedding words_, chars_;
  BiLayer char_rnn_;
  std::vector<BiLayer> encoder_;
  GatedDotAttention qp_att_, self_att_;
  BiLayer qp_rnn_, self_rnn_;
  AttentionPooling pool_q_;
  PointerNet pointer_;
  PartMarks* marks_ = nullptr;
};

}  // namespace twin::rc
