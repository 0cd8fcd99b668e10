// The reading-comprehension vocabularies (words, characters), the ids of a split's texts, and the batch of a list
// of questions in the model's layout (rc_batch.h).
//
// Words. With data.embeddings (R-Net's setting: fixed GloVe vectors), the word vocabulary is <pad>, <unk> and the
// vectors file's words in file order, and a token is looked up as R-Net's _get_word does: as written, then
// lowercased, capitalised, uppercased (ASCII), else <unk>. R-Net builds its vocabulary from the train and dev
// words that have a vector; data_prep/squad.py's GloVe subset is exactly the vectors of the words of every split
// (as written or lowercased), so taking its words gives dev words their fixed pretrained vector as R-Net does
// and no more: the vectors are not trained and nothing is counted from dev (a full GloVe file gives a larger
// vocabulary, still with nothing from dev). Without embeddings: the training words (passages and questions) seen
// at least data.min_count times, by descending count; nothing from heldout or dev.
// Characters: those of the training tokens (passages and questions), by descending count; R-Net counts train
// and dev characters, but its character embeddings are trained, so a dev-only character would only get an
// untrained random vector: here it is <unk>. Both: <pad> = 0, <unk> = 1.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "data/vocab.h"
#include "data/word_char_vocabs.h"
#include "rc_batch.h"
#include "rc_data.h"

namespace twin::rc {

struct RcVocabs : WordCharVocabs {
  // R-Net's _get_word: the first of token, lowercase, Capitalised, UPPERCASE (ASCII) in `words`, else <unk>.
  int word_id(std::string_view token) const;
};

// The words of a GloVe-format file, in file order, read by nn/glove_lines.h's rule (the one Embedding::load_glove
// reads the vectors by; D from the header or the first vector line). Errors name file:line: a line with another
// number of values, a word seen twice.
std::vector<std::string> vector_file_words(const std::string& path);

// The vocabularies from the training examples (each paragraph counted once) and c.embeddings, as above.
RcVocabs build_vocabs(const std::vector<RcExample>& train, const RcDataConfig& c);

// Fills words / chars of every question and every paragraph (once per paragraph) of `split`.
void encode(std::vector<RcExample>& split, const RcVocabs& v);

// The batch of `examples` (encoded) in rc_batch.h's layout: B = examples.size(), Tp / Tq the longest passage /
// question, Lc = char_limit (a word's first char_limit characters, shorter words padded with 0); with_answers:
// answer_start / answer_end from each question's first answer, else both empty. An Error for an empty list, an
// example not encoded, or a passage whose answer span lies outside it.
RcBatch make_batch(const std::vector<const RcExample*>& examples, int char_limit, bool with_answers);
// The same for examples data[ids[0]], data[ids[1]], ... (an Error for an id outside data).
RcBatch make_batch(const std::vector<RcExample>& data, const std::vector<int>& ids, int char_limit,
                   bool with_answers);

// A question's length for batching (training windows and evaluation, data/batch.h): the passage's tokens, which
// dominate the padded work (and the self-matching attention is quadratic in them).
inline std::size_t example_length(const RcExample& e) { return e.paragraph->passage.tokens.size(); }

}  // namespace twin::rc
