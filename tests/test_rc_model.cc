// The reading-comprehension R-Net (tasks/rc/rc_model.h): the span decoder on hand-computed cases; padding (appended
// positions in passage and question, with random word and character ids there) never changes the logits at real
// positions nor the predicted span, for atr, lstm, gru, lrn and sru; the training loss is finite with dropout and
// its backward reaches the parameters; training a tiny model lowers its loss on a toy batch; bad batches are
// refused naming the question; model.* defaults and a misspelt key; the parameter counts at the paper's sizes,
// beside the LRN paper's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <tuple>

#include "base/check.h"
#include "base/json_reader.h"
#include "graph/graph.h"
#include "graph/init.h"
#include "nn/embedding.h"
#include "nn/seq_dropout.h"
#include "ops/ops.h"
#include "optim/optimizer.h"
#include "rnn/cell_factory.h"
#include "rnn/rnn.h"
#include "rc_chars.h"
#include "rc_model.h"
#include "rc_toy_batch.h"
#include "test_util.h"
#include "toy_training.h"

namespace twin::rc {
namespace {

std::pair<int, int> span_of(std::vector<double> p1, std::vector<double> p2, int limit) {
  std::vector<Real> a, b;
  for (double v : p1) a.push_back(static_cast<Real>(std::log(v)));
  for (double v : p2) b.push_back(static_cast<Real>(std::log(v)));
  return best_span(a.data(), b.data(), static_cast<Index>(a.size()), limit);
}

TEST(RcSpan, BestSpanOnHandComputedCases) {
  // p1 p2 products: (0,0) .05 (0,1) .02 (0,2) .03 (1,1) .12 (1,2) .18 (2,2) .09
  EXPECT_EQ(span_of({.1, .6, .3}, {.5, .2, .3}, 15), std::make_pair(1, 2));
  // ans_limit 0: single tokens only, (1,1) .12 beats (2,2) .09 and (0,0) .05
  EXPECT_EQ(span_of({.1, .6, .3}, {.5, .2, .3}, 0), std::make_pair(1, 1));
  // the end is never before the start: the best start 2 and the best end 0 do not pair; (0,0) and (2,2) both .08,
  // the tie goes to the smaller start
  EXPECT_EQ(span_of({.1, .1, .8}, {.8, .1, .1}, 15), std::make_pair(0, 0));
  // ans_limit 1 excludes (0,2) = .45 (p1 .9 at 0, p2 .5 at 2); best left: (0,1) .9*.4 = .36
  EXPECT_EQ(span_of({.9, .05, .05}, {.1, .4, .5}, 1), std::make_pair(0, 1));
  EXPECT_EQ(span_of({.9, .05, .05}, {.1, .4, .5}, 2), std::make_pair(0, 2));
  // a one-token passage
  EXPECT_EQ(span_of({1.0}, {1.0}, 15), std::make_pair(0, 0));
}

RcModelConfig small_config(const std::string& cell) {
  RcModelConfig c;
  c.word_dim = 4;
  c.char_dim = 3;
  c.char_hidden = 3;
  c.cell.type = cell;
  c.cell.hidden = 4;
  return c;
}

constexpr int kWords = 12, kChars = 7;

struct Toy {
  std::vector<std::vector<int>> passages{{2, 3, 4, 5, 6}, {7, 8}, {9, 10, 3, 11}};
  std::vector<std::vector<int>> questions{{3, 4}, {8, 2, 9, 5}, {11}};
  std::vector<std::pair<int, int>> answers{{1, 3}, {1, 1}, {2, 3}};
  RcBatch batch(Index extra_p = 0, Index extra_q = 0, unsigned noise = 0) const {
    return test::toy_batch(passages, questions, answers, 4, kWords, kChars, extra_p, extra_q, noise);
  }
};

class RcModelCells : public ::testing::TestWithParam<std::string> {};

TEST_P(RcModelCells, PaddingNeverChangesTheLogitsAtRealPositionsNorTheSpans) {
  ParamStore store(21);
  const RcModelConfig c = small_config(GetParam());
  RcModel m(c, kWords, kChars, store);
  Rng fill(9);
  init::uniform(Real(0.5))(m.word_embedding().table().value, fill);
  const Toy toy;
  const RcBatch plain = toy.batch(), padded = toy.batch(3, 2, 17);
  ASSERT_EQ(padded.passage_len, plain.passage_len + 3);
  auto run = [&](const RcBatch& b) {
    Graph g(Mode::kInfer);
    Rng rng(1);
    const PointerLogits l = m.logits(g, b, rng);
    return std::make_pair(l.start.val(), l.end.val());
  };
  const auto [s0, e0] = run(plain);
  const auto [s1, e1] = run(padded);
  // At this initialisation the logits are small (about 1e-4: Glorot weights without biases keep the whole
  // network in its small-signal regime) and differ between positions by 1e-6 or more, so an absolute tolerance
  // would make the check vacuous. Each question's tolerance is 1e-3 of its logits' spread over the real positions,
  // and that spread must be there (a model whose logits ignore the passage would pass a padding check trivially).
  for (Index q = 0; q < 3; ++q) {
    const Index len = static_cast<Index>(toy.passages[static_cast<size_t>(q)].size());
    for (const auto& [a0, a1, what] : {std::tuple(&s0, &s1, "start"), std::tuple(&e0, &e1, "end")}) {
      const auto real = a0->row(q).head(len);
      const double spread = real.maxCoeff() - real.minCoeff();
      EXPECT_GT(spread, 1e-3 * real.cwiseAbs().maxCoeff()) << what << " logits of question " << q << " are uniform";
      EXPECT_GT(spread, 1e-7) << what << " logits of question " << q;
      for (Index t = 0; t < len; ++t)
        EXPECT_NEAR((*a1)(q, t), (*a0)(q, t), 1e-3 * spread) << what << ", question " << q << " position " << t;
      for (Index t = len; t < padded.passage_len; ++t) EXPECT_LT((*a1)(q, t), -1e29) << "padded " << what << " logit";
    }
  }
  EXPECT_EQ(m.predict_spans(plain), m.predict_spans(padded));
  // The spans are real: inside each passage, no longer than ans_limit.
  for (size_t q = 0; q < 3; ++q) {
    const auto [s, e] = m.predict_spans(plain)[q];
    EXPECT_LE(0, s);
    EXPECT_LE(s, e);
    EXPECT_LT(e, static_cast<int>(toy.passages[q].size()));
  }
}

TEST_P(RcModelCells, TrainingLossWithDropoutIsFiniteAndReachesTheParameters) {
  ParamStore store(22);
  RcModel m(small_config(GetParam()), kWords, kChars, store);
  Graph g;
  Rng rng(2);
  Var loss = m.summed_loss(g, Toy().batch(1, 1, 5), rng, true);
  ASSERT_TRUE(std::isfinite(loss.val()(0, 0)));
  EXPECT_GT(loss.val()(0, 0), 0);
  g.backward(loss);
  for (const std::string name : {"rc/chars/E", "rc/encoder/l0/fwd", "rc/qp_att/W_g", "rc/self_att/W_x",
                                 "rc/pool_q/W", "rc/pointer/v/W"}) {
    // The largest entry, not a sum of squares: on this toy (fixed zero word vectors) some gradients are about
    // 1e-20, whose squares are subnormal and flushed to zero like every binary's (base/fp_mode.h).
    Real largest = 0;
    for (const auto& p : store.all())
      if (p->name.rfind(name, 0) == 0) largest = std::max(largest, p->grad.cwiseAbs().maxCoeff());
    EXPECT_GT(largest, 0) << name << " got no gradient";
  }
  EXPECT_EQ(store.get("rc/words/E").grad.squaredNorm(), 0) << "the word vectors are fixed";
}

INSTANTIATE_TEST_SUITE_P(Cells, RcModelCells, ::testing::Values("atr", "lstm", "gru", "lrn", "sru"));

// Three initialisations (parameter seeds), GRU cells (R-Net's), Adam at lr 0.01. Why not one seed, nor ATR at
// lr 0.05 as first written: this deep model on three questions sits on a plateau at the start (the loss is within
// 1e-4 of the uniform 2 ln 40 = 7.3778), and which runs leave it is chaotic: ATR at lr 0.05 from seed 23 reached
// 2.69 in one binary and stayed at 7.3778 in another that differed only in which library objects were linked
// (rounding-level differences from step 1 on). Measured here, GRU at lr 0.01, seeds 1..5 and 23: 0.34 .. 2.12
// after 150 steps in both binaries (ATR: 0.09 .. 5.6).
TEST(RcModel, TrainingOnAToyBatchLowersItsLoss) {
  for (const std::uint64_t seed : {23, 2, 4}) {
    ParamStore store(seed);
    RcModelConfig c = small_config("gru");
    c.dropout = c.ptr_dropout = 0;
    RcModel m(c, kWords, kChars, store);
    Rng fill(9);
    init::uniform(Real(0.5))(m.word_embedding().table().value, fill);
    const Toy toy;
    const RcBatch b = toy.batch();
    const auto [first, last] = twin::test::adam_on_one_batch(
        store, 150, 0.01, [&](Graph& g, Rng& rng) { return m.summed_loss(g, b, rng, true); });
    EXPECT_NEAR(first, 2 * std::log(40.0), 1e-3) << "seed " << seed << ": near-uniform spans at the start";
    EXPECT_LT(last, 0.5 * first) << "seed " << seed << ": first " << first << " last " << last;
  }
}

TEST(RcModel, BadBatchesAreRefusedNamingTheQuestion) {
  ParamStore store(24);
  RcModel m(small_config("gru"), kWords, kChars, store);
  Toy toy;
  toy.answers[1] = {1, 2};   // passage 1 has 2 tokens: its end 2 is padding
  Graph g;
  Rng rng(1);
  EXPECT_PRED2(twin::test::contains, twin::test::error_of([&] { m.summed_loss(g, toy.batch(), rng, true); }),
               "question 1's answer [1, 2]");
  RcBatch b = Toy().batch();
  b.passage_words[0] = kWords;
  EXPECT_THROW(m.predict_spans(b), Error);
}

// model.* defaults are R-Net's (config.py); a partial section keeps the other defaults; a bad value is refused
// naming the key.
TEST(RcModel, ConfigDefaultsAreRNetsAndBadKeysAreRefused) {
  JsonReader empty(nlohmann::json::object(), "x.json", "model");
  const RcModelConfig d = parse_rc_model(empty);
  EXPECT_EQ(d.cell.type, "gru");
  EXPECT_EQ(d.cell.hidden, 75);
  EXPECT_EQ(d.char_dim, 8);
  EXPECT_EQ(d.char_hidden, 100);
  EXPECT_EQ(d.layers, 3);
  EXPECT_EQ(d.ans_limit, 15);
  EXPECT_DOUBLE_EQ(d.dropout, 0.3);
  EXPECT_DOUBLE_EQ(d.ptr_dropout, 0.3);
  EXPECT_TRUE(d.freeze_words);
  JsonReader lrn(nlohmann::json{{"cell", {{"type", "lrn"}}}}, "x.json", "model");
  const RcModelConfig l = parse_rc_model(lrn);
  EXPECT_EQ(l.cell.type, "lrn");
  EXPECT_EQ(l.cell.hidden, 75);
  JsonReader bad(nlohmann::json{{"ans_limt", 15}}, "x.json", "model");
  EXPECT_PRED2(twin::test::contains, twin::test::error_of([&] { parse_rc_model(bad); }), "unknown key \"model.ans_limt\"");
}

// The packed character RNN (rc_chars.h) equals the masked run it replaced (run_rnn over all L slots of every word,
// padding carrying the state, seq_dropout's mask): words with padding inside, a word with no characters, one with
// all L; the output and the gradients of both cells and the character table, with dropout, for TensorFlow's GRU
// (the default) and an LSTM (a memory cell, model.cell_everywhere).
TEST(RcChars, PackedEqualsTheMaskedRun) {
  const Index N = 6, L = 4, dim = 3;
  const std::vector<int> ids{2, 3, 0, 0, 0, 0, 0, 0, 4, 0, 5, 6, 7, 8, 9, 2, 0, 3, 0, 0, 5, 0, 0, 0};
  for (const char* type : {"gru", "lstm"}) {
    CellConfig cc;
    cc.type = type;
    cc.hidden = 5;
    if (cc.type == "gru") cc.gru_reset_after = false;
    auto run = [&](bool packed, std::vector<Mat>& grads) {
      ParamStore store(3);
      Embedding emb(store, "chars", 10, dim, init::uniform(Real(0.5)));
      const auto fwd = make_cell(cc, static_cast<int>(dim), store, "fwd");
      const auto bwd = make_cell(cc, static_cast<int>(dim), store, "bwd");
      Graph g;
      Rng rng(7);
      Var ch;
      if (packed) {
        ch = packed_char_states(g, emb, *fwd, *bwd, ids, N, L, Real(0.3), rng);
      } else {
        IdMat tm(L, N);
        Mat mask(L * N, 1);
        for (Index n = 0; n < N; ++n)
          for (Index c = 0; c < L; ++c) {
            tm(c, n) = ids[static_cast<size_t>(n * L + c)];
            mask(c * N + n, 0) = tm(c, n) != 0 ? 1 : 0;
          }
        Var x = seq_dropout(emb.apply(g, tm), N, Real(0.3), rng);
        ch = concat_cols({run_rnn(*fwd, x, mask, N, Dir::kForward).last.h,
                          run_rnn(*bwd, x, mask, N, Dir::kBackward).last.h});
      }
      Rng wr(5);
      Mat w(N, 2 * cc.hidden);
      init::uniform(Real(1))(w, wr);
      g.backward(sum_all(ch * g.constant(w)));
      for (const auto& p : store.all()) grads.push_back(p->grad);
      return Mat(ch.val());
    };
    std::vector<Mat> gp, gm;
    const Mat packed = run(true, gp), masked = run(false, gm);
    ASSERT_EQ(packed.rows(), N);
    EXPECT_LT((packed - masked).cwiseAbs().maxCoeff(), 1e-6) << type;
    EXPECT_EQ(packed.row(1), Mat::Zero(1, 2 * cc.hidden)) << type;   // no characters: zero states
    EXPECT_GT(packed.row(3).cwiseAbs().maxCoeff(), 0) << type;
    ASSERT_EQ(gp.size(), gm.size());
    for (size_t i = 0; i < gp.size(); ++i) {
      EXPECT_LT((gp[i] - gm[i]).cwiseAbs().maxCoeff(), 1e-5) << type << " parameter " << i;
      EXPECT_GT(gp[i].cwiseAbs().maxCoeff(), 0) << type << " parameter " << i;
    }
  }
}

// Trainable parameters (the fixed word vectors excluded, as TensorFlow's trainable_variables, which the LRN paper
// counts) at R-Net's sizes with a 1,300-character vocabulary; the LRN paper's Table 5 counts beside them.
TEST(RcModel, ParameterCountsAtThePapersSizes) {
  const std::vector<std::pair<std::string, double>> paper{
      {"lstm", 2.67e6}, {"gru", 2.31e6}, {"atr", 1.59e6}, {"sru", 2.44e6}, {"lrn", 2.14e6}};
  for (const auto& [cell, millions] : paper) {
    ParamStore store(1);
    RcModelConfig c;
    c.cell.type = cell;
    RcModel m(c, 2, 1300, store);
    Index n = 0;
    for (Param* p : store.trainable()) n += p->value.size();
    std::cout << "rc parameters " << cell << ": " << n << " (LRN paper " << millions << ")\n";
    EXPECT_NEAR(static_cast<double>(n), millions, 0.01 * millions) << cell;   // the paper rounds to 10k
  }
}

}  // namespace
}  // namespace twin::rc
