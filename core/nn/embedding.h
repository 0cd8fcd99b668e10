// Word embeddings: a table E:[V, D] (parameter `scope/E`), y[n] = E[ids[n]]. The lookup's backward
// scatter-adds into the looked-up rows only and marks them touched (row-sparse optimiser updates).
//  - freeze(): E.trainable = false, so graphs give it no gradient node and it keeps no gradient buffer
//    (pretrained vectors kept fixed).
//  - Tied output layer (Press & Wolf 2017, Inan et al. 2017): logits = h E^T via matmul_nt on the SAME
//    Param, so the store holds one entry and both uses accumulate into one gradient.
//  - Pretrained vectors in GloVe text format, one `word v1 ... vD` per line (see load_glove below).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/init.h"

namespace twin {

// Maps a word to its table row, or to a negative number when the word has no row. It must NOT map
// unknown words to <unk>, or every unknown vector in the file would overwrite the <unk> row.
using WordToId = std::function<int(const std::string&)>;
// Called with every vector line's word and where it is ("pretrained embeddings '<path>' line N"); throws to refuse
// it. The engine has no text module (the double build leaves data/ out), so the caller brings the UTF-8 check.
using WordCheck = std::function<void(const std::string& word, const std::string& where)>;

struct PretrainedStats {
  Index lines = 0;          // vector lines read (a word2vec-style "count dim" header is not counted)
  Index found = 0;          // distinct table rows that received a vector
  Index not_in_vocab = 0;   // lines whose word has no row
  Index missing = 0;        // table rows with no vector (keep their initial values), reserved ids included
};

class Embedding {
 public:
  Embedding() = default;
  Embedding(ParamStore& store, const std::string& scope, Index vocab, Index dim, const Init& init);

  Var apply(Graph& g, const Ids& ids) const;     // N ids -> [N, D]
  Var apply(Graph& g, const IdMat& ids) const;   // time-major [T, B] -> [T*B, D], row t*B+b
  Var tied_logits(Var h) const;                  // h:[N, D] -> h E^T [N, V] (tied output layer)

  // Frozen, the table has no gradient buffer either ([V, D]: 26 MB for 66k GloVe rows of 100).
  void freeze(bool frozen = true) {
    Param& e = table();
    e.trainable = !frozen;
    e.grad = frozen ? Mat() : Mat::Zero(e.value.rows(), e.value.cols());
  }
  bool frozen() const { return !table().trainable; }
  Param& table() const;
  Index vocab_size() const { return e_ ? e_->value.rows() : 0; }
  Index dim() const { return e_ ? e_->value.cols() : 0; }

  // GloVe text format, read by nn/glove_lines.h's rule (`word v1 ... vD` separated by spaces or tabs, CRLF, a
  // word2vec-style first line "<count> <dim>", words with spaces whose extra pieces are not numbers), D the
  // table's width. Rows of found words are overwritten with the file's values; other rows keep their initial
  // values. Values of words not in the vocabulary are not parsed (a large file is mostly such words), only
  // counted. Throws twin::Error naming the file and line for a wrong number of values, a non-numeric/non-finite
  // value, a word the caller's check refuses, or a second line for a word of the vocabulary (which vector was
  // meant is unknowable).
  PretrainedStats load_glove(const std::string& path, const WordToId& word_to_id, const WordCheck& check = nullptr);
  PretrainedStats load_glove(const std::string& path, const std::vector<std::string>& vocab,   // id = index
                             const WordCheck& check = nullptr);

 private:
  Param* e_ = nullptr;
};

}  // namespace twin
