// Double-precision tests of the recurrent cells: finite-difference gradients of run_rnn through every
// parameter, the input and the initial state (both directions, a padded batch); the golden file that the
// float build is compared against; ATR paper Eq. (10) rebuilt from recorded gates; birnn/stacked gradients.
// Regenerate the golden file with:  TW_REGEN_GOLDEN=1 build/bin/twin_gradcheck --gtest_filter='CellGolden.*'
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "gradcheck.h"
#include "ops/ops.h"
#include "rnn/cell_factory.h"
#include "cell_variants.h"
#include "rnn/gates.h"
#include "rnn/stacked.h"
#include "test_util.h"

namespace twin::test {
namespace {

constexpr int kI = 3, kH = 2;
constexpr Index kT = 4, kB = 2;

CellConfig variant(const std::string& name, int hidden = kH) { return cell_variant(name, hidden); }

std::vector<std::string> variant_only_names() {
  std::vector<std::string> out;
  for (const auto& v : cell_variants(kH))
    if (!is_registered_cell(v.name)) out.push_back(v.name);
  return out;
}

// Gradient of [fwd h_all; bwd h_all; both final states] w.r.t. x, h0 (and c0), and every parameter.
void check_cell_gradient(const CellConfig& cfg, int input_dim) {
  GradCheck gc;
  ParamStore store(3);
  auto cell = make_cell(cfg, input_dim, store, "cell");
  auto x = gc.input(kT * kB, input_dim);
  auto h0 = gc.input(kB, cfg.hidden);
  auto c0 = gc.input(kB, cfg.hidden);   // unused by cells without memory (its gradient is then 0 both ways)
  gc.also_perturb(store);
  const Mat mask = time_major_mask(kT, {4, 2});
  gc.check([&](Graph& g) {
    CellState init{h0.in(g), cell->has_memory() ? c0.in(g) : Var{}};
    SeqOut f = run_rnn(*cell, x.in(g), mask, kB, Dir::kForward, init);
    SeqOut b = run_rnn(*cell, x.in(g), mask, kB, Dir::kBackward, init);
    std::vector<Var> parts{f.h_all, b.h_all, f.last.h, b.last.h};
    if (cell->has_memory()) parts.insert(parts.end(), {f.last.c, b.last.c});
    return stack_rows(parts);
  });
}

class CellGrad : public ::testing::TestWithParam<std::string> {};

TEST_P(CellGrad, PaddedBatchBothDirectionsAllParamsInputsAndState) { check_cell_gradient(variant(GetParam()), kI); }

INSTANTIATE_TEST_SUITE_P(Registered, CellGrad, ::testing::ValuesIn(registered_cell_names()));
INSTANTIATE_TEST_SUITE_P(Variants, CellGrad, ::testing::ValuesIn(variant_only_names()));

// SRU's highway uses x itself when I == H (no projection): a different code path.
TEST(CellGradExtra, SruWithInputEqualHidden) { check_cell_gradient(variant("sru"), kH); }
TEST(CellGradExtra, GruResetBeforeWithInputEqualHidden) { check_cell_gradient(variant("gru_reset_before"), kH); }
TEST(CellGradExtra, SimplestRanIdentityContent) {
  CellConfig c = variant("ran");
  c.content = RanContent::kIdentity;
  check_cell_gradient(c, kH);
  c.layer_norm = true;
  check_cell_gradient(c, kH);
}

// ---------------------------------------------------------------------------------------------------------
// Golden file: per variant, the fingerprint of a fixed seeded run. The double build must reproduce it to
// 1e-10; tests/test_cells.cc checks the float build against the same file at 1e-4 relative.

std::string golden_path() { return std::string(TW_SOURCE_DIR) + "/tests/golden/cells_forward.json"; }

nlohmann::json fingerprint_json(const CellFingerprint& fp) {
  return {{"fwd_sum", fp.fwd_sum}, {"bwd_sum", fp.bwd_sum}, {"abs_mean", fp.abs_mean}, {"entries", fp.entries}};
}

TEST(CellGolden, DoubleMatchesCommittedFile) {
  nlohmann::json now;
  for (const auto& v : cell_variants(kH)) now[v.name] = fingerprint_json(cell_fingerprint(v.cfg));
  const char* regen = std::getenv("TW_REGEN_GOLDEN");
  if (regen && std::string(regen) == "1") {
    nlohmann::json doc = {{"about", "cell_fingerprint() of core/rnn/cell_variants.h per cell variant, double "
                                    "precision; regenerate with TW_REGEN_GOLDEN=1 twin_gradcheck "
                                    "--gtest_filter='CellGolden.*'"},
                          {"cells", now}};
    std::ofstream out(golden_path());
    out.precision(17);
    out << doc.dump(1) << "\n";
    ASSERT_TRUE(out.good()) << "could not write " << golden_path();
    GTEST_SKIP() << "rewrote " << golden_path();
  }
  std::ifstream in(golden_path());
  ASSERT_TRUE(in.good()) << "missing " << golden_path() << " (HINT: TW_REGEN_GOLDEN=1)";
  const nlohmann::json cells = nlohmann::json::parse(in).at("cells");
  EXPECT_EQ(cells.size(), now.size()) << "the golden file and cell_variants() list different cells";
  for (auto it = now.begin(); it != now.end(); ++it) {
    ASSERT_TRUE(cells.contains(it.key())) << "golden file has no entry for " << it.key();
    const auto& want = cells.at(it.key());
    for (const char* k : {"fwd_sum", "bwd_sum", "abs_mean"})
      EXPECT_NEAR(it.value()[k].get<double>(), want.at(k).get<double>(), 1e-10) << it.key() << " " << k;
    const auto a = it.value()["entries"].get<std::vector<double>>();
    const auto b = want.at("entries").get<std::vector<double>>();
    ASSERT_EQ(a.size(), b.size()) << it.key();
    for (size_t j = 0; j < a.size(); ++j) EXPECT_NEAR(a[j], b[j], 1e-10) << it.key() << " entry " << j;
  }
}

// ---------------------------------------------------------------------------------------------------------
// ATR paper Eq. (10): for identity-output twin-gated cells from a zero state, h_t = Σ_k g_k ⊙ v_k exactly.

struct UnrollCase {
  std::string variant;
  Index value_chunk;   // which [B,H] block of project_inputs is v_k (ATR: p, LRN: v, RAN: c̃)
};

void check_unrolled(const UnrollCase& uc, Dir dir) {
  SCOPED_TRACE(uc.variant + (dir == Dir::kForward ? " forward" : " backward"));
  ParamStore store(9);
  CellConfig cfg = variant(uc.variant);
  cfg.init_scale = 0.7;   // larger weights: gates far from 1/2, so a wrong product would show
  auto cell = make_cell(cfg, kI, store, "u");
  Rng rng(4);
  Mat xv(kT * kB, kI);
  rng.fill_uniform(xv, -1, 1);
  const std::vector<Index> lengths{4, 2};
  const Mat mask = time_major_mask(kT, lengths);
  Graph g(Mode::kInfer);
  Var x = g.constant(xv);
  Var xp = cell->project_inputs(x);
  std::vector<Mat> v;
  for (Index t = 0; t < kT; ++t) v.push_back(slice_cols(slice_rows(xp, t * kB, kB), uc.value_chunk * kH, kH).val());
  // Unpadded: every step of every sequence.
  SeqOut full = run_rnn(*cell, x, Mat(), kB, dir, {}, true);
  const auto& i = full.gates.at("i");
  const auto& f = full.gates.at("f");
  ASSERT_EQ(i.size(), static_cast<size_t>(kT));
  for (Index t = 0; t < kT; ++t) {
    const Mat h = unrolled_state(i, f, v, t, dir);
    EXPECT_LT((h - full.h_all.val().middleRows(t * kB, kB)).cwiseAbs().maxCoeff(), 1e-10) << "step " << t;
  }
  // Padded: sequence 1 (length 2) ends in the same state, rebuilt from its first two steps only.
  SeqOut pad = run_rnn(*cell, x, mask, kB, dir, {}, true);
  auto first = [](const std::vector<Mat>& s, Index n) { return std::vector<Mat>(s.begin(), s.begin() + n); };
  const Index n = lengths[1];
  const Mat h1 = unrolled_state(first(pad.gates.at("i"), n), first(pad.gates.at("f"), n), first(v, n),
                                dir == Dir::kForward ? n - 1 : 0, dir);
  EXPECT_LT((h1.row(1) - pad.last.h.val().row(1)).cwiseAbs().maxCoeff(), 1e-10);
  // final_state_weights is the unit-mean of those g_k, and zero on padding.
  const Mat w = final_state_weights(pad.gates.at("i"), pad.gates.at("f"), lengths, dir);
  const auto g1 = contribution_weights(first(pad.gates.at("i"), n), first(pad.gates.at("f"), n),
                                       dir == Dir::kForward ? n - 1 : 0, dir);
  for (Index k = 0; k < kT; ++k)
    EXPECT_NEAR(w(k, 1), k < n ? g1[static_cast<size_t>(k)].row(1).mean() : 0.0, 1e-12) << "token " << k;
}

TEST(GateContributions, UnrolledSumReproducesTheState) {
  for (const UnrollCase& uc : {UnrollCase{"atr", 0}, UnrollCase{"atr_coupled", 0}, UnrollCase{"atr_bias_both", 0},
                               UnrollCase{"lrn_identity", 2}, UnrollCase{"ran_identity", 2}})
    for (Dir dir : {Dir::kForward, Dir::kBackward}) check_unrolled(uc, dir);
}

TEST(GateContributions, TanhOutputIsNotTheUnrolledSum) {
  // The same identity must FAIL for a tanh-output ATR: the test above is not vacuous.
  ParamStore store(9);
  CellConfig cfg = variant("atr_tanh");
  cfg.init_scale = 0.7;
  auto cell = make_cell(cfg, kI, store, "u");
  Rng rng(4);
  Mat xv(kT * kB, kI);
  rng.fill_uniform(xv, -1, 1);
  Graph g(Mode::kInfer);
  Var xp = cell->project_inputs(g.constant(xv));
  std::vector<Mat> v;
  for (Index t = 0; t < kT; ++t) v.push_back(slice_rows(xp, t * kB, kB).val());
  SeqOut out = run_rnn(*cell, g.constant(xv), Mat(), kB, Dir::kForward, {}, true);
  const Mat h = unrolled_state(out.gates.at("i"), out.gates.at("f"), v, kT - 1);
  EXPECT_GT((h - out.h_all.val().middleRows((kT - 1) * kB, kB)).cwiseAbs().maxCoeff(), 1e-4);
}

TEST(GateContributions, DependencyMatrixIsLowerTriangularForward) {
  std::vector<Mat> i, f;
  Rng rng(2);
  for (int t = 0; t < 3; ++t) {
    Mat a(1, 2), b(1, 2);
    rng.fill_uniform(a, 0, 1);
    rng.fill_uniform(b, 0, 1);
    i.push_back(a);
    f.push_back(b);
  }
  const Mat d = dependency_matrix(i, f, 0, 3, Dir::kForward);
  EXPECT_EQ(d(0, 1), 0.0);
  EXPECT_EQ(d(1, 2), 0.0);
  EXPECT_NEAR(d(2, 2), i[2].mean(), 1e-15);
  EXPECT_NEAR(d(2, 0), (i[0].array() * f[1].array() * f[2].array()).mean(), 1e-15);
  const Mat db = dependency_matrix(i, f, 0, 3, Dir::kBackward);
  EXPECT_EQ(db(2, 0), 0.0);
  EXPECT_NEAR(db(0, 2), (i[2].array() * f[1].array() * f[0].array()).mean(), 1e-15);
  EXPECT_THROW(contribution_weights(i, f, 3), Error);
}

// ---------------------------------------------------------------------------------------------------------
// run_birnn / run_stacked gradients (padded batch, non-zero initial states).

TEST(StackedGrad, BirnnPaddedAllParamsAndInputs) {
  GradCheck gc;
  ParamStore store(5);
  auto fwd = make_cell(variant("gru"), kI, store, "enc/fwd");
  auto bwd = make_cell(variant("lstm"), kI, store, "enc/bwd");
  auto x = gc.input(kT * kB, kI);
  auto hf = gc.input(kB, kH), hb = gc.input(kB, kH), cb = gc.input(kB, kH);
  gc.also_perturb(store);
  const Mat mask = time_major_mask(kT, {4, 2});
  gc.check([&](Graph& g) {
    BiSeqOut o = run_birnn(*fwd, *bwd, x.in(g), mask, kB, {hf.in(g), {}}, {hb.in(g), cb.in(g)});
    EXPECT_EQ(o.h_all.cols(), 2 * kH);
    return stack_rows({o.h_all, concat_cols({o.fwd.h, o.bwd.h}), concat_cols({o.bwd.c, o.fwd.h})});
  });
}

TEST(StackedGrad, StackedWithDropoutPaddedAllParamsAndInputs) {
  GradCheck gc;
  ParamStore store(6);
  auto l0 = make_cell(variant("lstm"), kI, store, "lm/l0");
  auto l1 = make_cell(variant("atr"), kH, store, "lm/l1");
  auto l2 = make_cell(variant("lrn"), kH, store, "lm/l2");
  auto x = gc.input(kT * kB, kI);
  auto h0 = gc.input(kB, kH), c0 = gc.input(kB, kH);
  gc.also_perturb(store);
  const Mat mask = time_major_mask(kT, {4, 2});
  for (Dir dir : {Dir::kForward, Dir::kBackward})
    gc.check([&](Graph& g) {
      Rng rng(17);   // same dropout masks in every evaluation of the finite differences
      StackedOut o = run_stacked({l0.get(), l1.get(), l2.get()}, x.in(g), mask, kB, dir,
                                 {{h0.in(g), c0.in(g)}, {}, {h0.in(g), {}}}, Real(0.3), rng);
      EXPECT_EQ(o.last.size(), 3u);
      return stack_rows({o.h_all, o.last[0].h, o.last[0].c, o.last[1].h, o.last[2].h});
    });
}

}  // namespace
}  // namespace twin::test
