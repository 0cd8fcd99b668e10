#include "rc_model.h"

#include <limits>
#include <string>

#include "graph/init.h"
#include "rc_chars.h"
#include "ops/ops.h"
#include "rnn/cell_factory.h"
#include "rnn/rnn.h"

namespace twin::rc {

namespace {

// The LRN code's character RNN and pointer cell: TensorFlow GRUCells (reset before U, glorot kernels).
CellConfig tf_gru(int hidden) {
  CellConfig c;
  c.type = "gru";
  c.hidden = hidden;
  c.gru_reset_after = false;
  c.init = WeightInit::kGlorot;
  return c;
}

CellConfig with_hidden(CellConfig c, int hidden) {
  c.hidden = hidden;
  return c;
}

void check_batch(const RcBatch& b, bool need_answers) {
  const Index B = b.batch, P = b.passage_len, Q = b.question_len, L = b.word_len;
  TW_CHECK(B > 0 && P > 0 && Q > 0 && L > 0, "RcModel: empty batch (B=", B, " P=", P, " Q=", Q, " L=", L, ")");
  TW_CHECK(static_cast<Index>(b.passage_words.size()) == P * B && static_cast<Index>(b.question_words.size()) == Q * B &&
               static_cast<Index>(b.passage_chars.size()) == P * B * L &&
               static_cast<Index>(b.question_chars.size()) == Q * B * L,
           "RcBatch: word or character ids do not match B=", B, " P=", P, " Q=", Q, " L=", L);
  TW_CHECK(b.passage_mask.rows() == P * B && b.passage_mask.cols() == 1 && b.question_mask.rows() == Q * B &&
               b.question_mask.cols() == 1,
           "RcBatch: masks must be [P*B x 1] and [Q*B x 1]");
  for (Index q = 0; q < B; ++q)
    TW_CHECK(b.passage_mask(q, 0) == 1 && b.question_mask(q, 0) == 1, "RcBatch: question ", q,
             " has an empty passage or question");
  if (!need_answers) return;
  TW_CHECK(static_cast<Index>(b.answer_start.size()) == B && static_cast<Index>(b.answer_end.size()) == B,
           "RcBatch: ", b.answer_start.size(), " answer starts and ", b.answer_end.size(), " ends for ", B, " questions");
  for (Index q = 0; q < B; ++q) {
    const int s = b.answer_start[static_cast<size_t>(q)], e = b.answer_end[static_cast<size_t>(q)];
    TW_CHECK(s >= 0 && s <= e && e < P && b.passage_mask(e * B + q, 0) == 1, "RcBatch: question ", q, "'s answer [",
             s, ", ", e, "] is not a span of its passage's real tokens");
  }
}

}  // namespace

std::pair<int, int> best_span(const Real* log_p1, const Real* log_p2, Index len, int ans_limit) {
  TW_CHECK(len >= 1 && ans_limit >= 0, "best_span: len ", len, ", ans_limit ", ans_limit);
  std::pair<int, int> best{0, 0};
  Real best_score = -std::numeric_limits<Real>::infinity();
  for (Index i = 0; i < len; ++i)
    for (Index j = i; j < len && j <= i + ans_limit; ++j)
      if (const Real s = log_p1[i] + log_p2[j]; s > best_score) {
        best_score = s;
        best = {static_cast<int>(i), static_cast<int>(j)};
      }
  return best;
}

RcModel::BiLayer RcModel::make_bi(const CellConfig& cell, int input_dim, ParamStore& store,
                                  const std::string& scope) const {
  return {make_cell(cell, input_dim, store, scope + "/fwd"), make_cell(cell, input_dim, store, scope + "/bwd")};
}

RcModel::RcModel(const RcModelConfig& cfg, Index word_vocab, Index char_vocab, ParamStore& store) : cfg_(cfg) {
  const int H = cfg.cell.hidden, C = cfg.char_hidden;
  TW_CHECK(H > 0 && C > 0 && cfg.layers > 0 && cfg.word_dim > 0 && cfg.char_dim > 0,
           "model.cell.hidden, model.char_hidden, model.layers, model.word_dim and model.char_dim must be > 0");
  TW_CHECK(word_vocab >= 2 && char_vocab >= 2, "RcModel: vocabularies of ", word_vocab, " words and ", char_vocab,
           " characters (padding and unknown need 2)");
  const Init dense = init::glorot_uniform();
  words_ = Embedding(store, "rc/words", word_vocab, cfg.word_dim, init::constant(0));
  if (cfg.freeze_words) words_.freeze();
  chars_ = Embedding(store, "rc/chars", char_vocab, cfg.char_dim, init::normal(Real(0.01)));
  chars_.table().value.topRows(2).setZero();                                    // padding, unknown
  const CellConfig char_cell = cfg.cell_everywhere ? with_hidden(cfg.cell, C) : tf_gru(C);
  const CellConfig ptr_cell = cfg.cell_everywhere ? with_hidden(cfg.cell, 2 * H) : tf_gru(2 * H);
  char_rnn_ = make_bi(char_cell, cfg.char_dim, store, "rc/char_rnn");
  int in = cfg.word_dim + 2 * C;                                                // x_t = [e_t ; ch_t]
  for (int l = 0; l < cfg.layers; ++l) {
    encoder_.push_back(make_bi(cfg.cell, in, store, "rc/encoder/l" + std::to_string(l)));
    in = 2 * H;
  }
  const int U = 2 * H * cfg.layers;                                             // u [T*B, 6H]
  qp_att_ = GatedDotAttention(store, "rc/qp_att", U, U, H, dense);
  qp_rnn_ = make_bi(cfg.cell, 2 * U, store, "rc/qp_rnn");
  self_att_ = GatedDotAttention(store, "rc/self_att", 2 * H, 2 * H, H, dense);
  self_rnn_ = make_bi(cfg.cell, 4 * H, store, "rc/self_rnn");
  pool_q_ = AttentionPooling(store, "rc/pool_q", 2 * H, H, dense);
  pointer_ = PointerNet(store, "rc/pointer", ptr_cell, 2 * H, H, dense);
}

RcModel::~RcModel() = default;

// ids [N*L], character c of word n at n*L + c -> the BiRNN's final states [N, 2C], run packed (rc_chars.h).
Var RcModel::chars(Graph& g, const std::vector<int>& ids, Index words, Index word_len, Real p, Rng& rng) const {
  return packed_char_states(g, chars_, *char_rnn_.fwd, *char_rnn_.bwd, ids, words, word_len, p, rng);
}

// One BiRNN with its inputs dropped by the given per-sequence masks ([B, I], empty: no dropout).
Var RcModel::birnn(const BiLayer& l, Var x, const Mat& mask, Index batch, const Mat& mask_fwd,
                   const Mat& mask_bwd) const {
  Graph& g = *x.g;
  Var xf = mask_fwd.size() ? mul_tile_rows(x, g.constant(mask_fwd)) : x;
  Var xb = mask_bwd.size() ? mul_tile_rows(x, g.constant(mask_bwd)) : x;
  return concat_cols({run_rnn(*l.fwd, xf, mask, batch, Dir::kForward).h_all,
                      run_rnn(*l.bwd, xb, mask, batch, Dir::kBackward).h_all});   // [T*B, 2H]
}

PointerLogits RcModel::forward(Graph& g, const RcBatch& bt, Rng& rng, bool train) const {
  const Index B = bt.batch, P = bt.passage_len, Q = bt.question_len, H = cfg_.cell.hidden;
  const bool drop = train && g.training();
  const Real p = drop ? static_cast<Real>(cfg_.dropout) : 0, pp = drop ? static_cast<Real>(cfg_.ptr_dropout) : 0;
  const Mat &pmask = bt.passage_mask, &qmask = bt.question_mask;
  auto words = [&](const std::vector<int>& ids, Index T) {
    IdMat tm(T, B);
    for (Index i = 0; i < T * B; ++i) {
      const int id = ids[static_cast<size_t>(i)];
      TW_CHECK(id >= 0 && id < words_.vocab_size(), "RcBatch: word id ", id, " outside [0, ", words_.vocab_size(),
               ")");
      tm(i / B, i % B) = id;
    }
    return words_.apply(g, tm);                                                  // e [T*B, E]
  };
  auto mark = [&](const char* part) {
    if (marks_) marks_->emplace_back(part, g.size());
  };
  mark("passage words and characters");
  Var xp = concat_cols({words(bt.passage_words, P), chars(g, bt.passage_chars, P * B, bt.word_len, p, rng)});
  mark("question words and characters");
  Var xq = concat_cols({words(bt.question_words, Q), chars(g, bt.question_chars, Q * B, bt.word_len, p, rng)});
  mark("encoder");
  // Encoder: per layer and direction one mask [B, I], the same for passage and question (native_rnn's masks).
  auto mask_for = [&](Index cols) { return p > 0 ? dropout_mask(rng, B, cols, p) : Mat(); };
  std::vector<Var> up, uq;
  Var hp = xp, hq = xq;
  for (const BiLayer& l : encoder_) {
    const Mat mf = mask_for(hp.cols()), mb = mask_for(hp.cols());
    hp = birnn(l, hp, pmask, B, mf, mb);
    hq = birnn(l, hq, qmask, B, mf, mb);
    up.push_back(hp);
    uq.push_back(hq);
  }
  Var u_p = concat_cols(up), u_q = concat_cols(uq);                             // u^P [P*B, 6H], u^Q [Q*B, 6H]
  mark("question-passage attention");
  Var att = qp_att_.apply(u_p, u_q, qmask, B, p, rng);                          // [P*B, 12H]
  mark("question-passage RNN");
  Var v_p = birnn(qp_rnn_, att, pmask, B, mask_for(att.cols()), mask_for(att.cols()));   // v^P [P*B, 2H]
  mark("self-matching attention");
  Var self = self_att_.apply(v_p, v_p, pmask, B, p, rng);                       // [P*B, 4H]
  mark("self-matching RNN");
  Var h_p = birnn(self_rnn_, self, pmask, B, mask_for(self.cols()), mask_for(self.cols()));   // h^P [P*B, 2H]
  mark("question pooling and pointer");
  Var r_q = pool_q_.apply(slice_cols(u_q, u_q.cols() - 2 * H, 2 * H), qmask, B, pp, rng);   // r^Q [B, 2H]
  return pointer_.apply(r_q, h_p, pmask, B, pp, rng);
}

PointerLogits RcModel::logits(Graph& g, const RcBatch& batch, Rng& rng) const {
  check_batch(batch, false);
  return forward(g, batch, rng, true);
}

Var RcModel::summed_loss(Graph& g, const RcBatch& batch, Rng& rng, bool train) const {
  check_batch(batch, true);
  const PointerLogits l = forward(g, batch, rng, train);
  if (marks_) marks_->emplace_back("loss", g.size());
  const Ids start(batch.answer_start.begin(), batch.answer_start.end());
  const Ids end(batch.answer_end.begin(), batch.answer_end.end());
  return cross_entropy(l.start, start, Mat()) + cross_entropy(l.end, end, Mat());   // [1, 1]
}

std::vector<std::pair<int, int>> RcModel::predict_spans(const RcBatch& batch) const {
  check_batch(batch, false);
  Graph g(Mode::kInfer);
  Rng rng(0);   // unused: an inference graph draws no dropout
  const PointerLogits l = forward(g, batch, rng, false);
  const Mat lp1 = log_softmax_rows(l.start.val()), lp2 = log_softmax_rows(l.end.val());   // [B, P], row-major copies
  std::vector<std::pair<int, int>> spans;
  const Index B = batch.batch;
  for (Index q = 0; q < B; ++q) {
    Index len = 0;
    while (len < batch.passage_len && batch.passage_mask(len * B + q, 0) == 1) ++len;
    std::vector<Real> a(static_cast<size_t>(len)), b(static_cast<size_t>(len));
    for (Index t = 0; t < len; ++t) {
      a[static_cast<size_t>(t)] = lp1(q, t);
      b[static_cast<size_t>(t)] = lp2(q, t);
    }
    spans.push_back(best_span(a.data(), b.data(), len, cfg_.ans_limit));
  }
  return spans;
}

}  // namespace twin::rc
