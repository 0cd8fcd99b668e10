// nn/ modules (float): Linear and MLP values and names, the GloVe loader, frozen and tied embeddings.
// Gradients are checked in grad_nn.cc.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "graph/init.h"
#include "nn/embedding.h"
#include "nn/glove_lines.h"
#include "nn/linear.h"
#include "nn/mlp.h"
#include "ops/ops.h"
#include "test_util.h"

namespace twin {
namespace {

using test::contains;
using test::error_of;
using test::normal_mat;

// A file in the test temp directory, removed when the test ends.
struct TempFile {
  std::string path;
  explicit TempFile(const std::string& contents) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    static int counter = 0;   // several files per test must not share a path
    path = ::testing::TempDir() + "twin_nn_" + info->name() + "_" + std::to_string(counter++) + ".txt";
    std::ofstream(path) << contents;
  }
  ~TempFile() { std::remove(path.c_str()); }
};

const std::vector<std::string> kVocab = {"<pad>", "<unk>", "the", "cat", "dog"};

TEST(Linear, ValuesNamesAndShapeCheck) {
  ParamStore store;
  Linear lin(store, "enc/proj", 3, 2, init::uniform(1), true, init::uniform(1));
  ASSERT_EQ(store.all().size(), 2u);
  EXPECT_EQ(&lin.weight(), &store.get("enc/proj/W"));
  EXPECT_EQ(lin.bias(), &store.get("enc/proj/b"));
  EXPECT_EQ(lin.in_dim(), 3);
  EXPECT_EQ(lin.out_dim(), 2);
  Rng rng(1);
  const Mat x = normal_mat(rng, 4, 3);
  Graph g;
  Var y = lin.apply(g.constant(x));
  const Mat expect = (x * lin.weight().value).rowwise() + lin.bias()->value.row(0);
  EXPECT_TRUE(y.val().isApprox(expect, 1e-6f));
  EXPECT_THROW(lin.apply(g.constant(Mat::Zero(4, 2))), Error);

  ParamStore store2;
  Linear nobias(store2, "out", 3, 2, init::uniform(1), false);
  EXPECT_EQ(store2.all().size(), 1u);
  EXPECT_FALSE(nobias.has_bias());
  Graph g2;
  EXPECT_TRUE(nobias.apply(g2.constant(x)).val().isApprox(x * nobias.weight().value, 1e-6f));
}

TEST(Mlp, ComputesLayersWithActivationBetween) {
  ParamStore store;
  Mlp mlp(store, "cls", {.dims = {3, 4, 2}, .activation = Activation::kRelu}, init::uniform(1));
  ASSERT_EQ(store.all().size(), 4u);
  const Param& w0 = store.get("cls/l0/W");
  const Param& b0 = store.get("cls/l0/b");
  const Param& w1 = store.get("cls/l1/W");
  const Param& b1 = store.get("cls/l1/b");
  Rng rng(2);
  const Mat x = normal_mat(rng, 5, 3);
  const Mat h = ((x * w0.value).rowwise() + b0.value.row(0)).cwiseMax(0);
  const Mat expect = (h * w1.value).rowwise() + b1.value.row(0);   // last layer stays linear
  Graph g;
  EXPECT_TRUE(mlp.apply(g.constant(x)).val().isApprox(expect, 1e-5f));
  EXPECT_EQ(mlp.in_dim(), 3);
  EXPECT_EQ(mlp.out_dim(), 2);
  EXPECT_EQ(parse_activation("tanh"), Activation::kTanh);
  EXPECT_THROW(parse_activation("gelu"), Error);
  EXPECT_THROW(Mlp(store, "bad", {.dims = {3}}, init::uniform(1)), Error);
}

TEST(Mlp, DropoutOnlyInTrainingAndNeedsAnRng) {
  ParamStore store;
  Mlp mlp(store, "cls", {.dims = {3, 50, 2}, .activation = Activation::kTanh, .dropout = 0.5}, init::uniform(1));
  Rng rng(3);
  const Mat x = normal_mat(rng, 4, 3);
  Graph gi(Mode::kInfer), gt(Mode::kTrain), gplain(Mode::kInfer);
  ParamStore store0;
  Mlp no_drop(store0, "cls", {.dims = {3, 50, 2}, .activation = Activation::kTanh}, init::uniform(1));
  // Same init seed and names, so the same weights: inference with dropout equals no dropout at all.
  const Mat infer = mlp.apply(gi.constant(x), rng).val();
  EXPECT_TRUE(infer.isApprox(no_drop.apply(gplain.constant(x)).val(), 1e-6f));
  EXPECT_FALSE(mlp.apply(gt.constant(x), rng).val().isApprox(infer, 1e-3f));
  EXPECT_THROW(mlp.apply(gt.constant(x)), Error);   // training with dropout but no Rng
}

TEST(Embedding, LookupNamesAndTimeMajorIds) {
  ParamStore store;
  Embedding emb(store, "src/emb", 5, 3, init::uniform(1));
  EXPECT_EQ(&emb.table(), &store.get("src/emb/E"));
  IdMat ids(2, 2);   // [T=2, B=2]
  ids << 4, 1, 0, 3;
  Graph g;
  Var y = emb.apply(g, ids);
  ASSERT_EQ(y.rows(), 4);
  const Index order[] = {4, 1, 0, 3};   // row t*B + b
  for (Index r = 0; r < 4; ++r) EXPECT_EQ(y.val().row(r), emb.table().value.row(order[r]));
  EXPECT_THROW(emb.apply(g, Ids{5}), Error);
}

TEST(Embedding, GloveLoaderCopiesFoundVectorsAndCounts) {
  TempFile f(
      "the 0.25 -1.5 3\n"
      "zebra 9 9 9\n"
      "\n"
      "cat 0.1 -2e-3 1e+2\r\n"
      "zebra 7 7 7\n");   // a repeated word outside the vocabulary is not looked at
  ParamStore store;
  Embedding emb(store, "emb", 5, 3, init::constant(0.5f));
  const Mat before = emb.table().value;
  PretrainedStats st = emb.load_glove(f.path, kVocab);
  EXPECT_EQ(st.lines, 4);
  EXPECT_EQ(st.found, 2);
  EXPECT_EQ(st.not_in_vocab, 2);
  EXPECT_EQ(st.missing, 3);   // <pad>, <unk>, dog
  const Mat& e = emb.table().value;
  EXPECT_EQ(e(2, 0), 0.25f);
  EXPECT_EQ(e(2, 1), -1.5f);
  EXPECT_EQ(e(2, 2), 3.0f);
  EXPECT_EQ(e(3, 0), 0.1f);
  EXPECT_EQ(e(3, 1), -2e-3f);
  EXPECT_EQ(e(3, 2), 100.0f);
  for (Index r : {0, 1, 4}) EXPECT_EQ(e.row(r), before.row(r)) << "row " << r << " must keep its init";
}

TEST(Embedding, GloveLoaderWithFunctionHeaderAndSpacedWords) {
  TempFile f(
      "3 2\n"                  // word2vec-style header
      ". . . 1 2\n"            // a word with spaces (glove.840B has such lines)
      "dog\t-1\t0.5\n");
  ParamStore store;
  Embedding emb(store, "emb", 4, 2, init::constant(0));
  std::vector<std::string> seen;
  PretrainedStats st = emb.load_glove(f.path, [&](const std::string& w) {
    seen.push_back(w);
    return w == ". . ." ? 1 : w == "dog" ? 3 : -1;
  });
  EXPECT_EQ(seen, (std::vector<std::string>{". . .", "dog"}));
  EXPECT_EQ(st.lines, 2);
  EXPECT_EQ(st.found, 2);
  EXPECT_EQ(emb.table().value(1, 0), 1.0f);
  EXPECT_EQ(emb.table().value(1, 1), 2.0f);
  EXPECT_EQ(emb.table().value(3, 0), -1.0f);
  EXPECT_EQ(emb.table().value(3, 1), 0.5f);

  TempFile bad_header("3 5\ndog 1 2\n");
  const std::string msg = error_of([&] { emb.load_glove(bad_header.path, [](const std::string&) { return 0; }); });
  EXPECT_NE(msg.find("header says dimension 5"), std::string::npos) << msg;
  EXPECT_NE(error_of([&] { emb.load_glove(f.path, kVocab); }).find("vocabulary of 5 words"), std::string::npos);
}

TEST(Embedding, GloveWrongDimensionNamesFileAndLine) {
  TempFile few("the 1 2 3\ncat 1 2 3\ndog 1 2\n");
  ParamStore store;
  Embedding emb(store, "emb", 5, 3, init::constant(0));
  const std::string msg = error_of([&] { emb.load_glove(few.path, kVocab); });
  EXPECT_NE(msg.find(few.path), std::string::npos) << msg;
  EXPECT_NE(msg.find("line 3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("has 2 values, expected 3"), std::string::npos) << msg;

  TempFile many("the 1 2 3\ncat 1 2 3 4\n");
  const std::string msg2 = error_of([&] { emb.load_glove(many.path, kVocab); });
  EXPECT_NE(msg2.find("line 2"), std::string::npos) << msg2;
  EXPECT_NE(msg2.find("has 4 values, expected 3"), std::string::npos) << msg2;
}

// Issue 52's bad vector files: a vocabulary word given twice is an error naming the file and both lines; every
// word goes to the caller's check with where it is (load_text_embeddings refuses invalid UTF-8 there:
// test_snli_data.cc), and what the check throws stops the load.
TEST(Embedding, GloveDuplicateWordAndTheWordCheckNameFileAndLine) {
  ParamStore store;
  Embedding emb(store, "emb", 5, 3, init::constant(0));
  TempFile twice("the 1 2 3\ncat 1 2 3\nthe 4 5 6\n");
  const std::string msg = error_of([&] { emb.load_glove(twice.path, kVocab); });
  EXPECT_PRED2(contains, msg, "pretrained embeddings '" + twice.path + "' line 3: word 'the' again (first on line 1)");
  TempFile f("3 3\nthe 1 2 3\n\nzebra 1 2 3\n");
  std::vector<std::string> checked;
  emb.load_glove(f.path, kVocab,
                 [&](const std::string& w, const std::string& where) { checked.push_back(w + "@" + where); });
  const std::string at = "pretrained embeddings '" + f.path + "' line ";
  EXPECT_EQ(checked, (std::vector<std::string>{"the@" + at + "2", "zebra@" + at + "4"}));   // not the header
  const std::string refused = error_of([&] {
    emb.load_glove(f.path, kVocab, [](const std::string& w, const std::string& where) {
      TW_CHECK(w != "zebra", where, ": no zebras");
    });
  });
  EXPECT_PRED2(contains, refused, at + "4: no zebras");
}

TEST(Embedding, GloveNonNumericValueIsAnError) {
  TempFile f("the 1 2 3\ncat 1 x2 3\n");
  ParamStore store;
  Embedding emb(store, "emb", 5, 3, init::constant(0));
  const std::string msg = error_of([&] { emb.load_glove(f.path, kVocab); });
  EXPECT_NE(msg.find(f.path), std::string::npos) << msg;
  EXPECT_NE(msg.find("line 2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'x2'"), std::string::npos) << msg;
  EXPECT_EQ(emb.table().value.row(3), Mat::Zero(1, 3)) << "a bad line must not half-write its row";

  TempFile nan_file("dog 1 nan 3\n");
  EXPECT_NE(error_of([&] { emb.load_glove(nan_file.path, kVocab); }).find("not a finite number"), std::string::npos);
  const std::string missing = error_of([&] { emb.load_glove("/nonexistent/glove.txt", kVocab); });
  EXPECT_NE(missing.find("/nonexistent/glove.txt"), std::string::npos) << missing;
}

// The one rule every GloVe reader follows (nn/glove_lines.h), line by line: the header, blank lines, CRLF, words
// with spaces, D given or taken from the header or the first vector line, and each refusal naming the line.
std::vector<std::string> glove_words(const std::vector<std::string>& lines, Index dim) {
  GloveLines r(dim, [](long n) { return "f:" + std::to_string(n); });
  std::vector<std::string> out;
  for (const std::string& l : lines)
    if (r.read(l))
      out.push_back(r.word() + "/" + std::to_string(r.values().size()) + "@" + std::to_string(r.line_no()));
  return out;
}

std::string glove_error(const std::vector<std::string>& lines, Index dim) {
  return error_of([&] { glove_words(lines, dim); });
}

TEST(GloveLines, OneRuleForHeaderBlankLinesCrlfAndSpacedWords) {
  using V = std::vector<std::string>;
  // D from the first vector line; a blank line holds no vector; CR dropped; tabs separate too.
  EXPECT_EQ(glove_words({"the 1 2", "", "cat\t3\t4\r", ". . . 5 6"}, 0), (V{"the/2@1", "cat/2@3", ". . ./2@4"}));
  // The header "count dim" on the first non-blank line: skipped, and its dim is D (so a spaced first word reads).
  EXPECT_EQ(glove_words({"", "2 2", ". . . 5 6", "dog 1 2"}, 0), (V{". . ./2@3", "dog/2@4"}));
  EXPECT_EQ(glove_words({"2 2", ". . . 5 6"}, 2), (V{". . ./2@2"}));
  EXPECT_PRED2(contains, glove_error({"3 5", "dog 1 2"}, 2),
               "f:1: the header says dimension 5 but the embedding table has D=2");
  // Pieces before the last D fields are the word's, unless one is a number: then there are too many values.
  EXPECT_EQ(glove_words({"a b 2 3"}, 2), (V{"a b/2@1"}));
  EXPECT_PRED2(contains, glove_error({"a 1 2 3"}, 2), "f:1: 'a' has 3 values, expected 2 (the embedding dimension)");
  EXPECT_PRED2(contains, glove_error({"a 1", "3 4 5"}, 0), "f:2: '3' has 2 values, expected 1 (as line 1)");
  EXPECT_PRED2(contains, glove_error({"a 1 2", "b 1"}, 0), "f:2: 'b' has 1 values, expected 2 (as line 1)");
  // The values parse only when asked, each a finite number, else named.
  GloveLines r(2, [](long n) { return "g:" + std::to_string(n); });
  ASSERT_TRUE(r.read("w +1.5 -2e-1"));
  Real v[2];
  r.parse_values(v);
  EXPECT_EQ(v[0], Real(1.5));
  EXPECT_EQ(v[1], Real(-0.2));
  ASSERT_TRUE(r.read("x 1 inf"));
  EXPECT_PRED2(contains, error_of([&] { r.parse_values(v); }), "g:2: value 2 of 'x' is 'inf', not a finite number");
}

TEST(Embedding, FrozenTableGetsNoGradientNorABuffer) {
  ParamStore store;
  Embedding emb(store, "emb", 5, 3, init::uniform(1));
  Linear out(store, "out", 3, 2, init::uniform(1));
  emb.freeze();
  EXPECT_TRUE(emb.frozen());
  EXPECT_EQ(store.trainable().size(), 2u);   // out/W, out/b
  Graph g;
  g.backward(sum_all(tanh(out.apply(emb.apply(g, Ids{1, 3, 3})))));
  EXPECT_EQ(emb.table().grad.size(), 0);   // frozen: no gradient buffer at all
  EXPECT_TRUE(emb.table().touched.empty());
  EXPECT_FALSE(emb.table().all_touched);
  EXPECT_GT(out.weight().grad.cwiseAbs().sum(), 0.0f);   // the rest of the model did train
  emb.freeze(false);
  Graph g2;
  g2.backward(sum_all(tanh(out.apply(emb.apply(g2, Ids{1, 3, 3})))));
  EXPECT_GT(emb.table().grad.row(3).cwiseAbs().sum(), 0.0f);
  EXPECT_EQ(emb.table().grad.row(0), Mat::Zero(1, 3));
}

TEST(Embedding, TiedOutputUsesTheSameParam) {
  ParamStore store;
  Embedding emb(store, "lm/emb", 6, 3, init::uniform(1));
  Rng rng(4);
  const Mat h = normal_mat(rng, 2, 3);
  const Mat r = normal_mat(rng, 4, 6);
  Graph g;
  Var x = emb.apply(g, Ids{1, 5});                             // [2, 3]
  Var logits = emb.tied_logits(stack_rows({x, g.constant(h)}));   // [4, 6]
  ASSERT_EQ(store.all().size(), 1u);
  const Mat& E = emb.table().value;
  Mat hs(4, 3);
  hs << E.row(1), E.row(5), h;
  EXPECT_TRUE(logits.val().isApprox(hs * E.transpose(), 1e-6f));
  g.backward(sum_all(logits * g.constant(r)));
  // One gradient holds both uses: dE = r^T hs (output) + scatter of (r E) into rows 1 and 5 (lookup).
  Mat expect = r.transpose() * hs;
  const Mat dx = r * E;
  expect.row(1) += dx.row(0);
  expect.row(5) += dx.row(1);
  EXPECT_TRUE(emb.table().grad.isApprox(expect, 1e-5f)) << emb.table().grad << "\nvs\n" << expect;
  EXPECT_THROW(emb.tied_logits(g.constant(Mat::Zero(2, 4))), Error);
}

}  // namespace
}  // namespace twin
