// R-Net's character representation of words (rc_model.h: ch_t = [→C ; ←C], the final states of a BiRNN over the
// dropped-out character embeddings of word t), run packed. The masked run (run_rnn over all L character slots of
// all N words, padding carrying the state) stored every slot's step although 72 % of SQuAD's slots are padding
// (4.4 characters per word of the 16 kept); at 400-token passages it held 79 % of a training step's tape
// (tape_memory/rc_tape_memory.cc). Packed, a word's characters are its non-padding ids in order (a padded slot
// only carries the state, in either direction, so leaving it out computes the same), the words are sorted by
// their number of characters ℓ (longest first), and step t runs only the n_t = #{ℓ > t} words that have a t-th
// character:
//   forward   h_t = Cell(x_t, h_{t−1}) on rows [0, n_t) of the previous state; the rows [n_{t+1}, n_t) of h_t are
//             the final states of the words with ℓ = t + 1
//   backward  t = ℓ_max − 1 … 0: h_t = Cell(x_t, [h_{t+1} ; 0]), the n_t − n_{t+1} words that start there at zero
// A word with no characters gets zeros (both directions' zero initial state, as the masked run). The dropout mask is
// drawn as seq_dropout draws it (one [N, c] mask, row n for word n), so the random stream is the masked run's.
// Equal to the masked run up to the rounding of the products over fewer rows (tests/test_rc_model.cc).
#pragma once
#include <vector>

#include "base/rng.h"
#include "nn/embedding.h"
#include "rnn/cell.h"

namespace twin::rc {

// ids [N*L], character c of word n at n*L + c (0: padding, anywhere in the word) -> ch [N, 2C] (C: both cells'
// hidden size). Dropout p on the embeddings when the graph trains and p > 0.
Var packed_char_states(Graph& g, const Embedding& chars, const Cell& fwd, const Cell& bwd, const std::vector<int>& ids,
                       Index words, Index word_len, Real p, Rng& rng);

}  // namespace twin::rc
