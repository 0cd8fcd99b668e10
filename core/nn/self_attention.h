// Transformer encoder block (Vaswani et al. 2017) as the self-attention baseline that the sources compare with
// RNNs for sentence classification, with three kinds of position information (../shared/seeds/001_*.txt):
//   sinusoidal  PE(t, 2i) = sin(t / 10000^(2i/D)), PE(t, 2i+1) = cos(t / 10000^(2i/D)), added to the input
//   learned     a trained embedding P[t] (t < max_len), added to the input
//   relative    Shaw, Uszkoreit & Vaswani (NAACL 2018): no absolute position; inside every attention
//               e_ij = (x_i W^Q)(x_j W^K + a^K_ij)ᵀ / √d_h,  z_i = Σ_j α_ij (x_j W^V + a^V_ij),
//               a^K_ij = w^K_clip(j−i, k), a^V_ij = w^V_clip(j−i, k), clip(x, k) = max(−k, min(k, x));
//               w^K, w^V: [2k+1, d_h] per layer, shared by the heads (as in the paper).
// One layer (post-norm, as in Vaswani et al.):
//   A  = MultiHead(X) W^O                    heads h, d_h = D / h, scaled dot product, padding masked
//   X' = LayerNorm(X + Dropout(A))
//   Y  = LayerNorm(X' + Dropout(ReLU(X' W_1 + b_1) W_2 + b_2))       W_1: [D, F], W_2: [F, D]
// Sequences are time-major like the RNN driver: x [T*B, D], row t*B + b; mask [T*B, 1] of 0/1 (or empty when
// nothing is padded). Padded key positions receive exactly zero attention weight; padded rows of the output are
// defined (finite) but meaningless, and poolings must mask them.
// Parameters: scope/position [max_len, D] (learned); per layer scope/l<n>/: Wq Wk Wv Wo [D, D] (no biases),
// rel_k rel_v [2k+1, d_h] (relative), ln1/gain ln1/bias, ln2/gain ln2/bias [1, D] (gains 1, biases 0),
// W1 [D, F], b1 [1, F], W2 [F, D], b2 [1, D] (biases 0); `init` fills every other matrix. The attention itself
// is one fused op, scaled_dot_attention (ops/attention_ops.h).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "base/config_table.h"
#include "base/rng.h"
#include "graph/graph.h"
#include "graph/init.h"
#include "nn/linear.h"

namespace twin {

// Where the position information comes from (the table of the top of this file); key "position".
enum class PositionEncoding { kSinusoidal, kLearned, kRelative, kNone };
inline constexpr NameTable<PositionEncoding, 4> kPositionEncodingNames{{{PositionEncoding::kSinusoidal, "sinusoidal"},
                                                                        {PositionEncoding::kLearned, "learned"},
                                                                        {PositionEncoding::kRelative, "relative"},
                                                                        {PositionEncoding::kNone, "none"}}};

struct SelfAttentionConfig {
  Index dim = 0;                          // D (model width; = input width)
  Index heads = 4;                        // h; D % h == 0
  Index ff_dim = 0;                       // F; 0 = 4 D
  int layers = 1;
  PositionEncoding position = PositionEncoding::kSinusoidal;
  Index max_len = 512;                    // learned: table rows; longer inputs are an error naming the length
  Index clip_k = 16;                      // relative: the clipping distance k
  double dropout = 0.1;                   // on the attention output and the feed-forward output (training only)
};

// The "self_attention" keys of an experiment (dim is not one: the model sets it).
const ConfigTable<SelfAttentionConfig>& self_attention_table();

class SelfAttentionEncoder {
 public:
  SelfAttentionEncoder() = default;
  SelfAttentionEncoder(const SelfAttentionConfig& cfg, ParamStore& store, const std::string& scope, const Init& init);

  // x [T*B, D] time-major, mask [T*B, 1] (or empty) -> [T*B, D]. Dropout only when x's graph is training.
  // attention, when given, receives α of every layer and head: layers*heads matrices [B*T, T] (row b*T + i holds
  // query i of sequence b over the keys j), for inspection and tests. It is cleared first; layer-major order.
  Var apply(Var x, const Mat& mask, Index batch, Rng& rng, std::vector<Mat>* attention = nullptr) const;

  const SelfAttentionConfig& config() const { return cfg_; }
  static Index expected_params(const SelfAttentionConfig& cfg);   // closed form, for tests and reports

 private:
  struct Layer;
  SelfAttentionConfig cfg_;
  std::vector<std::shared_ptr<Layer>> layers_;
  Param* position_table_ = nullptr;   // learned: [max_len, D]
};

// PE [steps, dim]: PE(t, 2i) = sin(t / 10000^(2i/dim)), PE(t, 2i+1) = cos(t / 10000^(2i/dim)).
Mat sinusoidal_positions(Index steps, Index dim);

}  // namespace twin
