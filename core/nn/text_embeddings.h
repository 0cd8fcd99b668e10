// Pretrained word vectors for the labelled-text tasks (snli, classify): data.embeddings into an Embedding.
// In nn/ because it fills a layer's table (nn sits above data/ in core's layers, tools/check_layers.py); left
// out of the double-precision engine build, which has no data/ (core/CMakeLists.txt).
#pragma once
#include "data/labelled_text.h"
#include "nn/embedding.h"

namespace twin {

// Loads c.embeddings (if not "") into the rows of `emb` ([vocab.size(), d]) of the vocabulary words it
// holds, with Embedding::load_glove (GloVe text, word2vec header, tabs, CRLF, words with spaces; errors name
// file and line); returns how many rows were set, 0 for "". A missing file is an error saying what
// data.embeddings expects, and so is a file none of whose lines is a vocabulary word (a mismatch).
long load_text_embeddings(const TextDataConfig& c, const Vocab& vocab, Embedding& emb);

}  // namespace twin
