#include "nn/embedding.h"

#include <fstream>
#include <unordered_map>

#include "nn/glove_lines.h"
#include "ops/embed.h"
#include "ops/linalg.h"

namespace twin {

Embedding::Embedding(ParamStore& store, const std::string& scope, Index vocab, Index dim, const Init& init) {
  TW_CHECK(vocab > 0 && dim > 0, "Embedding '", scope, "': vocabulary and dimension must be positive, got V=",
           vocab, " D=", dim);
  e_ = &store.add(join_name(scope, "E"), vocab, dim, init);
}

Param& Embedding::table() const {
  TW_CHECK(e_ != nullptr, "Embedding: used before construction");
  return *e_;
}

Var Embedding::apply(Graph& g, const Ids& ids) const { return lookup(g.param(table()), ids); }

Var Embedding::apply(Graph& g, const IdMat& ids) const {
  // IdMat is row-major, so its storage order is already t*B + b (time-major).
  return apply(g, Ids(ids.data(), ids.data() + ids.size()));
}

Var Embedding::tied_logits(Var h) const {
  Param& e = table();
  TW_CHECK(h.cols() == e.value.cols(), "Embedding '", e.name, "' tied output: hidden ", shape_str(h),
           " must have D=", e.value.cols(), " columns (project it to the embedding size first)");
  return matmul_nt(h, h.g->param(e));
}

PretrainedStats Embedding::load_glove(const std::string& path, const WordToId& word_to_id, const WordCheck& check) {
  Param& e = table();
  const Index V = e.value.rows(), D = e.value.cols();
  std::ifstream in(path);
  TW_CHECK(in.good(), "pretrained embeddings: cannot open '", path, "'");

  PretrainedStats st;
  std::vector<Index> loaded_on(static_cast<size_t>(V), 0);   // the line a row's vector came from; 0 = none
  GloveLines lines(D, [&path](long n) { return detail::cat("pretrained embeddings '", path, "' line ", n); });
  std::string line;
  while (std::getline(in, line)) {
    if (!lines.read(line)) continue;
    const std::string& word = lines.word();
    // Every word, also one outside the vocabulary (the caller's check: nn/text_embeddings.cc refuses invalid
    // UTF-8, a file in another encoding whose words would silently match nothing).
    if (check) check(word, lines.where());
    ++st.lines;

    const int id = word_to_id(word);
    if (id < 0) {
      ++st.not_in_vocab;
      continue;
    }
    TW_CHECK(id < V, lines.where(), ": word '", word, "' maps to id ", id, " outside the embedding table of V=", V,
             " rows");
    // A second vector for a vocabulary word: which one was meant is unknowable (issue 52; a word outside the
    // vocabulary is not looked at, so a file's repeated junk lines do not stop it).
    TW_CHECK(loaded_on[static_cast<size_t>(id)] == 0, lines.where(), ": word '", word, "' again (first on line ",
             loaded_on[static_cast<size_t>(id)], "): a vectors file has one line per word");
    // Parse into a temporary row so a bad value leaves the table untouched.
    RowVec row(D);
    lines.parse_values(row.data());
    e.value.row(id) = row;
    loaded_on[static_cast<size_t>(id)] = lines.line_no();
    ++st.found;
  }
  TW_CHECK(!in.bad(), "pretrained embeddings: read error in '", path, "' after line ", lines.line_no());
  st.missing = V - st.found;
  return st;
}

PretrainedStats Embedding::load_glove(const std::string& path, const std::vector<std::string>& vocab,
                                      const WordCheck& check) {
  TW_CHECK(static_cast<Index>(vocab.size()) <= vocab_size(), "pretrained embeddings: a vocabulary of ",
           vocab.size(), " words for a table of V=", vocab_size(), " rows");
  std::unordered_map<std::string, int> ids;
  ids.reserve(vocab.size());
  for (size_t i = 0; i < vocab.size(); ++i) ids.emplace(vocab[i], static_cast<int>(i));   // first id wins
  return load_glove(
      path,
      [&ids](const std::string& w) {
        auto it = ids.find(w);
        return it == ids.end() ? -1 : it->second;
      },
      check);
}

}  // namespace twin
