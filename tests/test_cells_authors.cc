// Golden forward tests of the suite's ATR and LRN against their authors' code, in the authors' form of each
// (issue 51). The golden values are printed by tests/golden/authors_cells.py (numpy), a re-implementation of what
// these files compute, on the same fixed weights (in each file's own layout) and inputs:
//   AtrRepo     the ATR authors' repository, stored as DeepLearnXMU/ATR (the ATR README's own repository; a fork names it
//               bzhangGo/ATR), pytorch-lm/rnn/atr.py (commit 61badb9), class ATR, the PyTorch LM's cell:
//               p = i2h(x), q = h2h(h) (two nn.Linear, both with bias), i = σ(p+q), f = σ(p−q), h = i⊙p + f⊙h,
//               no output nonlinearity, h0 = 0.
//               Suite: atr, bias both, output identity. W = i2h.weightᵀ, b = i2h.bias, U = h2h.weightᵀ, d = h2h.bias.
//   LrnRepoAtr  bzhangGo/lrn lm/code/rnn.py, class ATRCell: the same gates with both biases, h = tanh(i⊙p + f⊙h).
//               Suite: atr, bias both, output tanh. W = _W, b = _W_b, U = _U, d = _U_b (already x W layout).
//   LrnRepoLrn  bzhangGo/lrn lm/code/rnn.py, class LRNCell: [p q r] = x _W + _W_b, i = σ(p + h), f = σ(q − h),
//               h = tanh(i⊙r + f⊙h). Suite: lrn, bias default (on), output tanh. The suite's chunks are
//               [forget-gate | input-gate | value] (lrn.cc: f = σ(chunk0 − h), i = σ(chunk1 + h)), the authors'
//               [p (input gate) | q (forget gate) | r (value)]: W = [_W(:, H:2H) | _W(:, 0:H) | _W(:, 2H:3H)], b alike.
//   AtrPaperTypo  not an authors' code form: the ATR paper's printed f = σ(q − p) on AtrRepo's weights, only for a
//               negative check.
// Weights, biases, inputs and initial states: gen(rows, cols, scale, phase)[r][c] = scale·sin(phase + 7r + 3c), the
// script's formula, evaluated here in the authors' layout and then mapped. I = 3, H = 4, B = 2, T = 3.
// The last tests change one thing (a dropped bias, a swapped gate sign, an unmapped chunk order, the output
// nonlinearity, a missing transpose) and require the suite to MISS the golden: the comparison discriminates.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ops/ops.h"
#include "rnn/cell_factory.h"
#include "rnn/rnn.h"
#include "test_util.h"

namespace twin::cells_authors {
namespace {

constexpr int kI = 3, kH = 4;
constexpr Index kB = 2, kT = 3;
constexpr double kTol = 1e-5;    // float forward against the double script
constexpr double kMiss = 1e-3;   // a wrong form must be at least this far off somewhere (100 x kTol)

using Golden = double[kT][kB * kH];

// Pasted from `/usr/bin/python3 tests/golden/authors_cells.py`. Row t: batch 0's h_t (H values), then batch 1's.
constexpr Golden kAtrRepo = {
    {0.000187707, 0.320595852, 0.013990573, 0.084337981, 0.526716090, 1.339153618, 0.546885667, 0.186212139},
    {0.753947695, 2.046737080, 0.875603149, 0.293737987, 0.843691957, 2.334904306, 0.954745725, 0.304445733},
    {0.431023635, 1.398391519, 0.449973928, 0.234346512, 0.170504656, 0.363108277, 0.010003083, 0.105916810},
};
constexpr Golden kLrnRepoAtr = {
    {0.122895057, -0.182495316, 0.162690167, -0.204948823, 0.108910746, -0.142405431, 0.196273960, -0.205511025},
    {0.098222834, -0.130061204, 0.155737488, -0.164009001, 0.047303808, -0.076300712, 0.138778272, -0.141496740},
    {-0.039210539, 0.029883773, 0.031956547, -0.040758231, -0.124947473, 0.187875838, -0.051682848, 0.089765235},
};
constexpr Golden kLrnRepoLrn = {
    {0.174031027, -0.310273875, 0.219215240, -0.336151532, 0.176575414, -0.207324236, 0.235452035, -0.265377714},
    {0.221493245, -0.257054085, 0.250222740, -0.261864799, 0.225292451, -0.226271325, 0.278261159, -0.251998039},
    {0.192302961, -0.249222950, 0.256102399, -0.270226559, 0.118285344, -0.201557797, 0.208540208, -0.264683713},
};
constexpr Golden kAtrPaperTypo = {
    {0.000187707, 0.320595852, 0.013990573, 0.084337981, 0.526716090, 1.339153618, 0.546885667, 0.186212139},
    {0.753828395, 1.820133599, 0.867591918, 0.299799827, 0.564198375, 1.560794429, 0.711814065, 0.325401673},
    {0.276604042, 1.066994638, 0.411203484, 0.298677729, 0.168747881, 0.855192181, 0.248653360, 0.219728394},
};

// The script's gen(): scale·sin(phase + 7r + 3c), computed in double, stored as Real.
constexpr auto gen = &test::sin_mat;

Mat inputs() { return gen(kT * kB, kI, 1.0, 0.3); }   // [T*B, I] time-major
Mat given_h0() { return gen(kB, kH, 0.5, 2.0); }      // the LRN repository cases' initial state

// The authors' parameters of each file, in that file's layout.
struct AtrRepoParams {   // nn.Linear: weight [out, in], bias [out]
  Mat i2h_w = gen(kH, kI, 0.6, 1.0), i2h_b = gen(1, kH, 0.3, 4.0);
  Mat h2h_w = gen(kH, kH, 0.6, 2.5), h2h_b = gen(1, kH, 0.3, 5.5);
};
struct LrnRepoAtrParams {   // torch.mm(x, _W) + _W_b: already [in, out]
  Mat w = gen(kI, kH, 0.6, 1.0), w_b = gen(1, kH, 0.3, 4.0);
  Mat u = gen(kH, kH, 0.6, 2.5), u_b = gen(1, kH, 0.3, 5.5);
};
struct LrnRepoLrnParams {   // [p q r] = x _W + _W_b
  Mat w = gen(kI, 3 * kH, 0.6, 1.0), w_b = gen(1, 3 * kH, 0.3, 4.0);
};

// The authors' [p q r] columns as the suite's [q p r] (lrn.cc: chunk 0 feeds the forget gate, chunk 1 the input gate).
Mat lrn_to_suite_chunks(const Mat& m) {
  Mat out(m.rows(), m.cols());
  out << m.middleCols(kH, kH), m.leftCols(kH), m.rightCols(kH);
  return out;
}

CellConfig atr_config(CellBias bias, CellOutput output) {
  CellConfig c;
  c.type = "atr";
  c.hidden = kH;
  c.bias = bias;
  c.output = output;
  return c;
}

CellConfig lrn_config(CellOutput output) {
  CellConfig c;
  c.type = "lrn";
  c.hidden = kH;
  c.output = output;
  return c;
}

// Builds the cell through the factory under scope "golden" and overwrites its parameters: `values` maps the
// letter ("W", "U", "b", "d") to its value. Every parameter the cell created must be given (none keeps its
// random initialisation), with its shape; a given letter the cell did not create is left over and fails too.
std::unique_ptr<Cell> build(const CellConfig& cfg, ParamStore& store, const std::map<std::string, Mat>& values) {
  auto cell = make_cell(cfg, kI, store, "golden");
  std::map<std::string, Mat> left = values;
  for (const auto& p : store.all()) {
    const std::string prefix = "golden/" + cfg.type + "/";
    EXPECT_EQ(p->name.rfind(prefix, 0), 0u) << p->name;
    const std::string letter = p->name.substr(prefix.size());
    auto it = left.find(letter);
    if (it == left.end()) {
      ADD_FAILURE() << p->name << " was not given a golden value";
      continue;
    }
    EXPECT_EQ(p->value.rows(), it->second.rows()) << p->name;
    EXPECT_EQ(p->value.cols(), it->second.cols()) << p->name;
    p->value = it->second;
    left.erase(it);
  }
  for (const auto& kv : left) ADD_FAILURE() << "cell " << cfg.type << " has no parameter " << kv.first;
  return cell;
}

// h_t of every step, t = 0..T-1, each [B, H]: project_inputs + step by hand, as test_cells.cc does. Also checks
// that the sequence driver (run_rnn, what the tasks use) gives the same states.
std::vector<Mat> run_steps(const Cell& cell, const Mat& h0) {
  Graph g(Mode::kInfer);
  Var x = g.constant(inputs());
  CellState s{g.constant(h0), Var{}};
  std::vector<Mat> out;
  for (Index t = 0; t < kT; ++t) {
    s = cell.step(cell.project_inputs(slice_rows(x, t * kB, kB)), s);
    out.push_back(s.h.val());
  }
  SeqOut whole = run_rnn(cell, x, Mat(), kB, Dir::kForward, CellState{g.constant(h0), Var{}});
  for (Index t = 0; t < kT; ++t)
    EXPECT_LT(test::max_abs_diff(whole.h_all.val().middleRows(t * kB, kB), out[static_cast<size_t>(t)]), 1e-6)
        << "run_rnn differs from the step loop at t = " << t;
  return out;
}

void expect_golden(const std::vector<Mat>& h, const Golden& want) {
  ASSERT_EQ(h.size(), static_cast<size_t>(kT));
  for (Index t = 0; t < kT; ++t) {
    const Mat& ht = h[static_cast<size_t>(t)];
    ASSERT_EQ(ht.rows(), kB);
    ASSERT_EQ(ht.cols(), kH);
    for (Index b = 0; b < kB; ++b)
      for (Index j = 0; j < kH; ++j)
        EXPECT_NEAR(static_cast<double>(ht(b, j)), want[t][b * kH + j], kTol) << "t " << t << " b " << b << " j " << j;
  }
}

double max_diff(const std::vector<Mat>& h, const Golden& want) {
  double m = 0;
  for (Index t = 0; t < kT; ++t)
    for (Index b = 0; b < kB; ++b)
      for (Index j = 0; j < kH; ++j)
        m = std::max(m, std::abs(static_cast<double>(h[static_cast<size_t>(t)](b, j)) - want[t][b * kH + j]));
  return m;
}

// The suite's parameters for AtrRepo: the transposes of nn.Linear's weights.
std::map<std::string, Mat> atr_repo_values(bool transpose_u = true) {
  const AtrRepoParams a;
  return {{"W", Mat(a.i2h_w.transpose())}, {"b", a.i2h_b},
          {"U", transpose_u ? Mat(a.h2h_w.transpose()) : a.h2h_w}, {"d", a.h2h_b}};
}

std::map<std::string, Mat> lrn_repo_atr_values() {
  const LrnRepoAtrParams a;
  return {{"W", a.w}, {"b", a.w_b}, {"U", a.u}, {"d", a.u_b}};
}

std::map<std::string, Mat> lrn_repo_lrn_values(bool map_chunks = true) {
  const LrnRepoLrnParams a;
  if (!map_chunks) return {{"W", a.w}, {"b", a.w_b}};
  return {{"W", lrn_to_suite_chunks(a.w)}, {"b", lrn_to_suite_chunks(a.w_b)}};
}

// ---------------------------------------------------------------------------------------------------------

TEST(CellAuthorsGolden, AtrEqualsTheAtrRepositorysPyTorchCell) {
  ParamStore store;
  auto cell = build(atr_config(CellBias::kBoth, CellOutput::kIdentity), store, atr_repo_values());
  EXPECT_EQ(store.total_size(), kI * kH + kH * kH + 2 * kH);
  expect_golden(run_steps(*cell, Mat::Zero(kB, kH)), kAtrRepo);
}

TEST(CellAuthorsGolden, AtrTanhEqualsTheLrnRepositorysAtrCell) {
  ParamStore store;
  auto cell = build(atr_config(CellBias::kBoth, CellOutput::kTanh), store, lrn_repo_atr_values());
  expect_golden(run_steps(*cell, given_h0()), kLrnRepoAtr);
}

TEST(CellAuthorsGolden, LrnEqualsTheLrnRepositorysCellWithItsChunksMapped) {
  ParamStore store;
  auto cell = build(lrn_config(CellOutput::kTanh), store, lrn_repo_lrn_values());
  EXPECT_EQ(store.total_size(), 3 * kI * kH + 3 * kH);
  expect_golden(run_steps(*cell, given_h0()), kLrnRepoLrn);
}

TEST(CellAuthorsGolden, LrnDefaultConfigIsTheAuthorsForm) {
  // The suite's LRN defaults (bias on, tanh output) are the LRN repository's cell: no option needs setting.
  ParamStore store;
  auto cell = build(lrn_config(CellOutput::kDefault), store, lrn_repo_lrn_values());
  expect_golden(run_steps(*cell, given_h0()), kLrnRepoLrn);
}

// --- the comparison discriminates: each wrong form misses its golden ------------------------------------------

TEST(CellAuthorsGolden, WrongAtrFormsMissTheGolden) {
  {
    SCOPED_TRACE("recurrent bias d dropped (bias input, the suite's default)");
    ParamStore store;
    std::map<std::string, Mat> v = atr_repo_values();
    v.erase("d");
    auto cell = build(atr_config(CellBias::kInput, CellOutput::kIdentity), store, v);
    EXPECT_GT(max_diff(run_steps(*cell, Mat::Zero(kB, kH)), kAtrRepo), kMiss);
  }
  {
    SCOPED_TRACE("tanh output instead of the ATR repository's identity");
    ParamStore store;
    auto cell = build(atr_config(CellBias::kBoth, CellOutput::kTanh), store, atr_repo_values());
    EXPECT_GT(max_diff(run_steps(*cell, Mat::Zero(kB, kH)), kAtrRepo), kMiss);
  }
  {
    SCOPED_TRACE("h2h.weight not transposed into U");
    ParamStore store;
    auto cell = build(atr_config(CellBias::kBoth, CellOutput::kIdentity), store, atr_repo_values(false));
    EXPECT_GT(max_diff(run_steps(*cell, Mat::Zero(kB, kH)), kAtrRepo), kMiss);
  }
  {
    SCOPED_TRACE("identity output instead of the LRN repository ATR's tanh");
    ParamStore store;
    auto cell = build(atr_config(CellBias::kBoth, CellOutput::kIdentity), store, lrn_repo_atr_values());
    EXPECT_GT(max_diff(run_steps(*cell, given_h0()), kLrnRepoAtr), kMiss);
  }
}

TEST(CellAuthorsGolden, AtrIsNotThePapersPrintedForgetGate) {
  // The correctly configured cell, against the golden of f = σ(q − p) (the paper's typo) on the same weights:
  // equal at t = 0 (h0 = 0, so f does not count yet), then apart.
  ParamStore store;
  auto cell = build(atr_config(CellBias::kBoth, CellOutput::kIdentity), store, atr_repo_values());
  const std::vector<Mat> h = run_steps(*cell, Mat::Zero(kB, kH));
  EXPECT_GT(max_diff(h, kAtrPaperTypo), kMiss);
  for (Index j = 0; j < kB * kH; ++j)
    EXPECT_NEAR(static_cast<double>(h[0](j / kH, j % kH)), kAtrPaperTypo[0][j], kTol) << "t 0 entry " << j;
}

TEST(CellAuthorsGolden, WrongLrnFormsMissTheGolden) {
  {
    SCOPED_TRACE("the authors' [p q r] columns loaded without mapping them onto the suite's chunk order");
    ParamStore store;
    auto cell = build(lrn_config(CellOutput::kTanh), store, lrn_repo_lrn_values(false));
    EXPECT_GT(max_diff(run_steps(*cell, given_h0()), kLrnRepoLrn), kMiss);
  }
  {
    SCOPED_TRACE("identity output instead of tanh");
    ParamStore store;
    auto cell = build(lrn_config(CellOutput::kIdentity), store, lrn_repo_lrn_values());
    EXPECT_GT(max_diff(run_steps(*cell, given_h0()), kLrnRepoLrn), kMiss);
  }
}

}  // namespace
}  // namespace twin::cells_authors
