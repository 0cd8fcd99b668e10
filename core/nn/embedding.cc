#include "nn/embedding.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string_view>
#include <unordered_map>

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

namespace {

void split_ws(std::string_view line, std::vector<std::string_view>& out) {
  out.clear();
  size_t i = 0;
  const size_t n = line.size();
  while (i < n) {
    while (i < n && (line[i] == ' ' || line[i] == '\t')) ++i;
    const size_t start = i;
    while (i < n && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
}

// Parses the whole token as a finite number; false otherwise.
bool parse_real(std::string_view tok, Real& out) {
  const char* first = tok.data();
  const char* last = tok.data() + tok.size();
  if (first != last && *first == '+') ++first;   // from_chars rejects a leading '+'
  auto [ptr, ec] = std::from_chars(first, last, out);
  if (ec == std::errc::result_out_of_range && ptr == last) {
    // Under- or overflow of Real: let strtod round it (to 0 or inf; inf is rejected below).
    out = static_cast<Real>(std::strtod(std::string(tok).c_str(), nullptr));
  } else if (ec != std::errc() || ptr != last) {
    return false;
  }
  return std::isfinite(out);
}

bool is_integer(std::string_view tok) {
  if (tok.empty()) return false;
  for (char c : tok)
    if (c < '0' || c > '9') return false;
  return true;
}

}  // namespace

PretrainedStats Embedding::load_glove(const std::string& path, const WordToId& word_to_id, const WordCheck& check) {
  Param& e = table();
  const Index V = e.value.rows(), D = e.value.cols();
  std::ifstream in(path);
  TW_CHECK(in.good(), "pretrained embeddings: cannot open '", path, "'");

  PretrainedStats st;
  std::vector<Index> loaded_on(static_cast<size_t>(V), 0);   // the line a row's vector came from; 0 = none
  std::vector<std::string_view> tok;
  std::string line, word;
  Index line_no = 0;
  bool first_content_line = true;
  while (std::getline(in, line)) {
    ++line_no;
    std::string_view sv(line);
    if (!sv.empty() && sv.back() == '\r') sv.remove_suffix(1);
    split_ws(sv, tok);
    if (tok.empty()) continue;
    const auto where = [&] { return detail::cat("pretrained embeddings '", path, "' line ", line_no, ": "); };
    if (first_content_line) {
      first_content_line = false;
      if (tok.size() == 2 && is_integer(tok[0]) && is_integer(tok[1])) {   // word2vec header "count dim"
        TW_CHECK(std::atoll(std::string(tok[1]).c_str()) == D, where(), "the header says dimension ", tok[1],
                 " but the embedding table has D=", D);
        continue;
      }
    }
    const auto n = static_cast<Index>(tok.size());
    TW_CHECK(n >= D + 1, where(), "'", tok[0], "' has ", n - 1, " values, expected ", D,
             " (the embedding dimension)");
    // Extra leading pieces belong to the word (glove.840B has words with spaces); if one of them is a
    // number, the line far more likely has too many values.
    const Index word_pieces = n - D;
    for (Index k = 1; k < word_pieces; ++k) {
      Real unused;
      TW_CHECK(!parse_real(tok[static_cast<size_t>(k)], unused), where(), "'", tok[0], "' has ", n - 1,
               " values, expected ", D, " (the embedding dimension)");
    }
    word.assign(tok[0]);
    for (Index k = 1; k < word_pieces; ++k) word.append(" ").append(tok[static_cast<size_t>(k)]);
    // Every word, also one outside the vocabulary (the caller's check: nn/text_embeddings.cc refuses invalid
    // UTF-8, a file in another encoding whose words would silently match nothing).
    if (check) check(word, detail::cat("pretrained embeddings '", path, "' line ", line_no));
    ++st.lines;

    const int id = word_to_id(word);
    if (id < 0) {
      ++st.not_in_vocab;
      continue;
    }
    TW_CHECK(id < V, where(), "word '", word, "' maps to id ", id, " outside the embedding table of V=", V, " rows");
    // A second vector for a vocabulary word: which one was meant is unknowable (issue 52; a word outside the
    // vocabulary is not looked at, so a file's repeated junk lines do not stop it).
    TW_CHECK(loaded_on[static_cast<size_t>(id)] == 0, where(), "word '", word, "' again (first on line ",
             loaded_on[static_cast<size_t>(id)], "): a vectors file has one line per word");
    // Parse into a temporary row so a bad value leaves the table untouched.
    RowVec row(D);
    for (Index d = 0; d < D; ++d) {
      const std::string_view t = tok[static_cast<size_t>(word_pieces + d)];
      TW_CHECK(parse_real(t, row(d)), where(), "value ", d + 1, " of '", word, "' is '", t,
               "', not a finite number");
    }
    e.value.row(id) = row;
    loaded_on[static_cast<size_t>(id)] = line_no;
    ++st.found;
  }
  TW_CHECK(!in.bad(), "pretrained embeddings: read error in '", path, "' after line ", line_no);
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
