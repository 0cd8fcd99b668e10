// Beam search (Nematus' shrinking beam over a flat node array) and greedy decoding; see beam_search.h.
#include "decode/beam_search.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "base/check.h"

namespace twin::nmt {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// One node of the search tree: the token chosen at some step, its parent node (-1: the sentence's BOS) and
// the accumulated log-prob of the path. Hypotheses are traced back from their last node at the end.
struct Node {
  std::int32_t word;
  int back;
  double logprob;
};

// A continuation of row `row` of the last step() by `token`; `rank` is the row's rank within its sentence
// (the tie-break that does not depend on the other sentences of the batch).
struct Cand {
  double score;
  std::int32_t token;
  int rank;
  int row;
};

// A strict total order on one sentence's candidates: higher score, then lower token id, then earlier rank.
// Being total, any partial selection under it picks the same set in the same order.
bool better(const Cand& a, const Cand& b) {
  if (a.score != b.score) return a.score > b.score;
  if (a.token != b.token) return a.token < b.token;
  return a.rank < b.rank;
}

void check_scores(const Mat& lp, std::size_t rows, int vocab, int step) {
  TW_CHECK(lp.rows() == static_cast<Index>(rows) && lp.cols() == vocab, "StepScorer::step returned ", shape_str(lp),
           " at step ", step, ", expected [", rows, "x", vocab, "] (rows given x vocabulary)");
}

// NaN or +inf cannot be a log-probability; both would also break the orderings below.
[[noreturn]] void fail_value(Real x, int step, int row, int token) {
  TW_FAIL("StepScorer::step returned ", x, " at step ", step, ", row ", row, ", token ", token,
          " (expected log-probabilities)");
}

[[noreturn]] void fail_all_forbidden(int step, int row) {
  TW_FAIL("StepScorer::step returned -inf for every token at step ", step, ", row ", row,
          " (a log-softmax never does)");
}

// Appends to `out` the best k continuations of one row under `better`, scanning the V log-probs once with a
// bounded heap (worst kept candidate on top): O(V) compares instead of sorting R*V values. Tokens come in
// increasing order with the same rank, so once the heap is full a score <= the worst kept one cannot enter.
// -inf is skipped.
void row_top_k(const Real* lp, int vocab, double acc, int k, int rank, int row, int step, std::vector<Cand>& heap,
               std::vector<Cand>& out) {
  heap.clear();
  double worst = -kInf;   // the entry bar: -inf until the heap is full
  for (int v = 0;; ++v) {
    // Fast scan (no calls, so everything stays in registers); NaN fails the test and goes on to the check.
    while (v < vocab && acc + static_cast<double>(lp[v]) <= worst) ++v;
    if (v == vocab) break;
    if (!(lp[v] < std::numeric_limits<Real>::infinity())) fail_value(lp[v], step, row, v);
    if (static_cast<int>(heap.size()) == k) std::pop_heap(heap.begin(), heap.end(), better), heap.pop_back();
    heap.push_back({acc + static_cast<double>(lp[v]), v, rank, row});
    std::push_heap(heap.begin(), heap.end(), better);
    if (static_cast<int>(heap.size()) == k) worst = heap.front().score;
  }
  if (heap.empty()) fail_all_forbidden(step, row);
  out.insert(out.end(), heap.begin(), heap.end());
}

// The attention row of the step that chose a token, cut to the sentence's positions (tokens + EOS) so that it
// does not depend on the longest source of the batch.
std::vector<float> attention_row(const Mat* att, int row, int source_length) {
  std::vector<float> a(static_cast<std::size_t>(source_length) + 1);
  for (std::size_t j = 0; j < a.size(); ++j) a[j] = static_cast<float>((*att)(row, static_cast<Index>(j)));
  return a;
}

const Mat* checked_attention(const StepScorer& scorer, std::size_t rows, int max_source, int step) {
  const Mat* att = scorer.last_attention();
  TW_CHECK(att != nullptr, "keep_attention is set but the scorer provides no attention");
  TW_CHECK(att->rows() == static_cast<Index>(rows) && att->cols() >= max_source + 1, "StepScorer::last_attention is ",
           shape_str(*att), " at step ", step, ", expected ", rows, " rows and >= ", max_source + 1, " columns");
  return att;
}

int max_source_length(const StepScorer& scorer) {
  int m = 0;
  for (int s = 0; s < scorer.num_sentences(); ++s) m = std::max(m, scorer.source_length(s));
  return m;
}

}  // namespace

void check_search_config(const SearchConfig& cfg, int vocab_size) {
  TW_CHECK(cfg.beam >= 1, "search config: beam must be >= 1 (got ", cfg.beam, ")");
  TW_CHECK(cfg.nbest >= 1 && cfg.nbest <= cfg.beam, "search config: nbest must be in [1, beam] (got nbest = ",
           cfg.nbest, ", beam = ", cfg.beam, ")");
  TW_CHECK(std::isfinite(cfg.alpha) && cfg.alpha >= 0, "search config: alpha must be finite and >= 0 (got ",
           cfg.alpha, ")");
  TW_CHECK(std::isfinite(cfg.max_len_a) && cfg.max_len_a >= 0, "search config: max_len_a must be finite and >= 0 (got ",
           cfg.max_len_a, ")");
  TW_CHECK(std::isfinite(cfg.max_len_b), "search config: max_len_b must be finite (got ", cfg.max_len_b, ")");
  TW_CHECK(vocab_size >= 1, "search: the scorer's vocab_size must be >= 1 (got ", vocab_size, ")");
  TW_CHECK(cfg.bos >= 0 && cfg.bos < vocab_size, "search config: bos must be a token id in [0, ", vocab_size,
           ") (got ", cfg.bos, ")");
  TW_CHECK(cfg.eos >= 0 && cfg.eos < vocab_size, "search config: eos must be a token id in [0, ", vocab_size,
           ") (got ", cfg.eos, ")");
}

int max_target_length(const SearchConfig& cfg, int source_length) {
  TW_CHECK(source_length >= 0, "search: source_length must be >= 0 (got ", source_length, ")");
  const double m = std::floor(cfg.max_len_a * source_length + cfg.max_len_b);
  TW_CHECK(m >= 1 && m <= 1e7, "search config: max_len = floor(max_len_a * source_length + max_len_b) = ", m,
           " for a source of ", source_length, " tokens (max_len_a = ", cfg.max_len_a, ", max_len_b = ",
           cfg.max_len_b, "); it must be in [1, 1e7]");
  return static_cast<int>(m);
}

double normalized_score(const SearchConfig& cfg, double logprob, int length) {
  if (cfg.normalize == LengthNorm::kNone) return logprob;
  TW_CHECK(length >= 1, "search: normalised length must be >= 1 (got ", length, ")");
  if (cfg.normalize == LengthNorm::kLength) return logprob / length;
  return logprob / std::pow((5.0 + length) / 6.0, cfg.alpha);   // kGnmt
}

std::vector<std::vector<Hypothesis>> beam_search(StepScorer& scorer, const SearchConfig& cfg) {
  const int vocab = scorer.vocab_size(), n = scorer.num_sentences();
  check_search_config(cfg, vocab);
  TW_CHECK(n >= 0, "search: num_sentences must be >= 0 (got ", n, ")");
  std::vector<int> max_len(n), src_len(n);
  for (int s = 0; s < n; ++s) max_len[s] = max_target_length(cfg, src_len[s] = scorer.source_length(s));
  const int max_src = max_source_length(scorer);

  std::vector<Node> nodes;
  std::vector<std::vector<float>> node_att;   // per node, when keep_attention
  std::vector<std::vector<int>> finished(n), unfinished(n);   // node ids, in the order they were kept
  // The rows of the next step(), grouped by sentence (sentence order), each group in rank order.
  std::vector<int> row_node, row_sent, parent;   // row_node -1: the sentence itself (first step)
  Ids prev;
  for (int s = 0; s < n; ++s) {
    row_node.push_back(-1);
    row_sent.push_back(s);
    parent.push_back(s);
    prev.push_back(cfg.bos);
  }
  std::vector<Cand> heap, cands;
  std::vector<int> next_node, next_sent, next_parent;
  Ids next_prev;
  for (int t = 1; !row_node.empty(); ++t) {
    const std::size_t rows = row_node.size();
    const Mat lp = scorer.step(parent, prev);
    check_scores(lp, rows, vocab, t);
    const Mat* att = cfg.keep_attention ? checked_attention(scorer, rows, max_src, t) : nullptr;
    next_node.clear(), next_sent.clear(), next_parent.clear(), next_prev.clear();
    for (std::size_t g = 0; g < rows;) {   // one group of rows = one sentence
      const int s = row_sent[g];
      std::size_t end = g;
      while (end < rows && row_sent[end] == s) ++end;
      const int k = cfg.beam - static_cast<int>(finished[s].size());
      cands.clear();
      for (std::size_t r = g; r < end; ++r) {
        const double acc = row_node[r] < 0 ? 0.0 : nodes[static_cast<std::size_t>(row_node[r])].logprob;
        row_top_k(lp.row(static_cast<Index>(r)).data(), vocab, acc, k, static_cast<int>(r - g), static_cast<int>(r),
                  t, heap, cands);
      }
      const std::size_t keep = std::min(static_cast<std::size_t>(k), cands.size());
      std::partial_sort(cands.begin(), cands.begin() + static_cast<std::ptrdiff_t>(keep), cands.end(), better);
      for (std::size_t i = 0; i < keep; ++i) {
        const Cand& c = cands[i];
        const int id = static_cast<int>(nodes.size());
        nodes.push_back({c.token, row_node[static_cast<std::size_t>(c.row)], c.score});
        if (att) node_att.push_back(attention_row(att, c.row, src_len[s]));
        if (c.token == cfg.eos) {
          finished[s].push_back(id);
        } else if (t == max_len[s]) {
          unfinished[s].push_back(id);   // the max-length rule: returned without EOS
        } else {
          next_node.push_back(id);
          next_sent.push_back(s);
          next_parent.push_back(c.row);
          next_prev.push_back(c.token);
        }
      }
      g = end;
    }
    row_node.swap(next_node), row_sent.swap(next_sent), parent.swap(next_parent), prev.swap(next_prev);
  }

  std::vector<std::vector<Hypothesis>> out(static_cast<std::size_t>(n));
  for (int s = 0; s < n; ++s) {
    auto& list = out[static_cast<std::size_t>(s)];
    for (bool fin : {true, false}) {
      for (int id : fin ? finished[s] : unfinished[s]) {
        Hypothesis h;
        h.finished = fin;
        h.logprob = nodes[static_cast<std::size_t>(id)].logprob;
        for (int i = id; i >= 0; i = nodes[static_cast<std::size_t>(i)].back) {
          h.tokens.push_back(nodes[static_cast<std::size_t>(i)].word);
          if (cfg.keep_attention) h.attention.push_back(node_att[static_cast<std::size_t>(i)]);
        }
        std::reverse(h.tokens.begin(), h.tokens.end());
        std::reverse(h.attention.begin(), h.attention.end());
        if (fin) h.tokens.pop_back();   // the EOS
        h.score = normalized_score(cfg, h.logprob, static_cast<int>(h.tokens.size()) + (fin ? 1 : 0));
        list.push_back(std::move(h));
      }
    }
    // Stable: equal scores keep the deterministic order above (finished first, then in the order kept).
    std::stable_sort(list.begin(), list.end(), [](const Hypothesis& a, const Hypothesis& b) { return a.score > b.score; });
    if (list.size() > static_cast<std::size_t>(cfg.nbest)) list.resize(static_cast<std::size_t>(cfg.nbest));
  }
  return out;
}

std::vector<Hypothesis> greedy_search(StepScorer& scorer, const SearchConfig& cfg) {
  SearchConfig c1 = cfg;   // beam and nbest do not apply here
  c1.beam = c1.nbest = 1;
  const int vocab = scorer.vocab_size(), n = scorer.num_sentences();
  check_search_config(c1, vocab);
  TW_CHECK(n >= 0, "search: num_sentences must be >= 0 (got ", n, ")");
  std::vector<int> max_len(n), src_len(n);
  for (int s = 0; s < n; ++s) max_len[s] = max_target_length(cfg, src_len[s] = scorer.source_length(s));
  const int max_src = max_source_length(scorer);

  std::vector<Hypothesis> out(static_cast<std::size_t>(n));
  std::vector<int> row_sent(static_cast<std::size_t>(n)), parent(static_cast<std::size_t>(n));
  for (int s = 0; s < n; ++s) row_sent[s] = parent[s] = s;
  Ids prev(static_cast<std::size_t>(n), cfg.bos);
  for (int t = 1; !row_sent.empty(); ++t) {
    const std::size_t rows = row_sent.size();
    const Mat lp = scorer.step(parent, prev);
    check_scores(lp, rows, vocab, t);
    const Mat* att = cfg.keep_attention ? checked_attention(scorer, rows, max_src, t) : nullptr;
    std::vector<int> next_sent, next_parent;
    Ids next_prev;
    for (std::size_t r = 0; r < rows; ++r) {
      const int s = row_sent[r];
      Hypothesis& h = out[static_cast<std::size_t>(s)];
      // Argmax of the accumulated score (the key beam search ranks by); the strict > keeps the lowest token.
      double best = -kInf;
      int tok = -1;
      for (int v = 0; v < vocab; ++v) {
        const Real x = lp(static_cast<Index>(r), v);
        if (!(x < std::numeric_limits<Real>::infinity())) fail_value(x, t, static_cast<int>(r), v);
        const double sc = h.logprob + static_cast<double>(x);
        if (sc > best) best = sc, tok = v;
      }
      if (tok < 0) fail_all_forbidden(t, static_cast<int>(r));
      h.logprob = best;
      if (att) h.attention.push_back(attention_row(att, static_cast<int>(r), src_len[s]));
      if (tok == cfg.eos) continue;   // finished
      h.tokens.push_back(tok);
      if (t == max_len[s]) {
        h.finished = false;
        continue;
      }
      next_sent.push_back(s);
      next_parent.push_back(static_cast<int>(r));
      next_prev.push_back(tok);
    }
    row_sent.swap(next_sent), parent.swap(next_parent), prev.swap(next_prev);
  }
  for (Hypothesis& h : out)
    h.score = normalized_score(cfg, h.logprob, static_cast<int>(h.tokens.size()) + (h.finished ? 1 : 0));
  return out;
}

}  // namespace twin::nmt
