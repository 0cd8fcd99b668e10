#include "nn/text_embeddings.h"

#include <filesystem>

#include "base/check.h"
#include "data/text.h"

namespace twin {

long load_text_embeddings(const TextDataConfig& c, const Vocab& vocab, Embedding& emb) {
  if (c.embeddings.empty()) return 0;
  // Checked here, before load_glove's plain "cannot open", to tell a user what the setting wants.
  TW_CHECK(std::filesystem::exists(c.embeddings), "embeddings file ", c.embeddings, " not found (data.embeddings: "
           "a GloVe text file such as glove.840B.300d.txt, or \"\" for random initialisation)");
  TW_CHECK(emb.vocab_size() == vocab.size(), "load_text_embeddings: the embedding table has ", emb.vocab_size(),
           " rows, the vocabulary ", vocab.size(), " words (one row per vocabulary word)");
  // vocab.find, not vocab.id: an unknown word must be skipped, not loaded into the <unk> row.
  // Every word must be UTF-8, as the corpora are: a vectors file in another encoding would match nothing.
  const PretrainedStats st = emb.load_glove(
      c.embeddings, [&vocab](const std::string& w) { return vocab.find(w); },
      [](const std::string& w, const std::string& where) { require_utf8(w, where, "word"); });
  // Vectors that match no word at all (or an empty file) are a mismatch, not a pretrained run (issue 52): the
  // file of another corpus, or cased words against a lowercased vocabulary; the run would silently train random
  // embeddings.
  TW_CHECK(st.found > 0, "embeddings file ", c.embeddings, ": none of its ", st.lines,
           " vector lines is a word of the vocabulary (", vocab.size(), " words, data.lowercase ",
           c.lowercase ? "true" : "false", "): vectors for another corpus, or another casing?");
  return static_cast<long>(st.found);
}

}  // namespace twin
