// Golden forward values of the issue-55 cells (minGRU, minLSTM, QRNN, IndRNN, HGRN), printed by
// tests/golden/linear_cells.py: an independent numpy implementation of each header's equations that runs one
// sequence at a time, one step at a time (no batching, masking or scan), on weights, inputs and initial states from
// gen(rows, cols, scale, phase)[r][c] = scale·sin(phase + 7r + 3c). The suite runs the same cells through run_rnn
// (the fused scan for all but IndRNN) on the batch, padded where the case says, and must match to 1e-5 (float
// against double). The last tests change one thing (the normalisation, the candidate, the gate convention of the
// QRNN reference code, the bound) and require the suite to MISS the golden: the comparison discriminates.
// I = 3, H = 4, B = 2, T = 3; padded cases: lengths {3, 2}.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "ops/ops.h"
#include "rnn/cell_factory.h"
#include "rnn/rnn.h"
#include "test_util.h"

namespace twin::cells_linear_golden {
namespace {

constexpr int kI = 3, kH = 4;
constexpr Index kB = 2, kT = 3;
constexpr double kTol = 1e-5;
constexpr double kMiss = 1e-3;

using Golden = double[kT][kB * kH];

// Pasted from `/usr/bin/python3 tests/golden/linear_cells.py`.
constexpr Golden kMinGru = {
    {0.465298158, 0.081340500, 0.492708339, 0.033921522, 0.399651943, 0.096644642, 0.478591961, 0.029910594},
    {0.578423218, 0.255928920, 0.615991759, 0.221280059, 0.520429287, 0.273977583, 0.599290992, 0.224257611},
    {0.542174040, 0.382119255, 0.606052697, 0.346342792, 0.492179123, 0.488517898, 0.549977224, 0.381503090},
};
constexpr Golden kMinGruBackwardPadded = {
    {0.534511521, 0.412549758, 0.569630498, 0.365081956, 0.507491166, 0.278272358, 0.575933597, 0.230132051},
    {0.582552485, 0.236548141, 0.639009125, 0.201367601, 0.422589511, 0.089571526, 0.525008870, 0.010943008},
    {0.473834154, 0.044396119, 0.541935994, -0.002980387, 0.206059243, -0.268286459, 0.325143920, -0.375493623},
};
constexpr Golden kMinLstm = {
    {0.485607690, -0.004818628, 0.532040430, -0.023312806, 0.431006058, 0.089199323, 0.494397651, 0.035373921},
    {0.619562170, 0.210088664, 0.642636756, 0.203191479, 0.604339175, 0.252425717, 0.649923978, 0.223066647},
    {0.657849187, 0.319937385, 0.711978517, 0.307605582, 0.583865172, 0.354339786, 0.674955193, 0.323132831},
};
constexpr Golden kMinLstmNoNormIdentity = {
    {0.215950318, -0.279293029, 0.264198542, -0.310171930, 0.180272788, -0.204903839, 0.250632653, -0.254850404},
    {0.245917288, -0.244878689, 0.278833946, -0.249615209, 0.230812226, -0.229936621, 0.292441406, -0.253509671},
    {0.205813725, -0.247754662, 0.275171566, -0.271385477, 0.121842465, -0.206537747, 0.218229471, -0.271976279},
};
constexpr Golden kQrnn = {
    {0.029047916, -0.053839507, 0.066641074, -0.078684922, -0.008530492, -0.014575924, 0.042677114, -0.054530551},
    {0.034214924, -0.045295470, 0.072496399, -0.070684661, -0.010478267, -0.011158625, 0.041374187, -0.047017886},
    {-0.040181897, 0.014164449, 0.007619487, -0.017347302, -0.113654584, 0.069470084, -0.067887601, 0.031532962},
};
constexpr double kQrnnC[8] = {-0.073333764, 0.032094086, 0.013410486, -0.040942266,
                              -0.220086243, 0.148788536, -0.123645470, 0.072312847};
constexpr Golden kQrnnW2 = {
    {0.029047916, -0.053839507, 0.066641074, -0.078684922, -0.008530492, -0.014575924, 0.042677114, -0.054530551},
    {0.004598110, -0.020081919, 0.040215306, -0.044242863, -0.026829218, 0.010932912, 0.003683326, -0.016107299},
    {-0.049950673, 0.034246937, -0.032102264, 0.016029546, -0.095511431, 0.076559847, -0.077928021, 0.053214866},
};
constexpr double kQrnnW2C[8] = {-0.103632368, 0.066998516, -0.064734114, 0.032256645,
                                -0.200832476, 0.149219394, -0.156306367, 0.108650187};
constexpr Golden kQrnnW2BackwardPadded = {
    {-0.018724138, -0.003522165, -0.015350583, -0.011784346, 0.013341739, -0.026566966, 0.037212659, -0.048486439},
    {0.057354129, -0.066912231, 0.103070268, -0.094155852, -0.017050785, -0.011468320, 0.049016985, -0.056897287},
    {0.024768750, -0.039674401, 0.088021669, -0.071776807, 0.206059243, -0.268286459, 0.325143920, -0.375493623},
};
constexpr double kQrnnW2BackwardPaddedC[8] = {-0.042742797, -0.006297042, -0.034538912, -0.021400175,
                                              0.026905266,  -0.052325439, 0.076126631,  -0.094258555};
constexpr Golden kIndRnn = {
    {0.000000000, 0.000000000, 0.000000000, 0.000000000, 0.052744348, 0.000000000, 0.100576188, 0.000000000},
    {0.065032544, 0.000000000, 0.129903064, 0.000000000, 0.000000000, 0.000000000, 0.078743833, 0.000000000},
    {0.000000000, 0.163390852, 0.000000000, 0.062767261, 0.000000000, 0.364641861, 0.000000000, 0.261488135},
};
constexpr Golden kHgrn = {
    {0.001312363, 0.004672892, 0.008504152, 0.012774671, -0.000611463, 0.002821520, 0.007710870, 0.009663170},
    {0.020235168, 0.019495741, 0.028556309, 0.023516188, 0.003328267, 0.006634543, 0.016858777, 0.015722996},
    {0.009262714, 0.013278588, 0.022952207, 0.021988033, -0.000853242, 0.001107001, 0.004918154, 0.009517318},
};
constexpr double kHgrnC[8] = {0.087900812,  -0.127638327, 0.147215155, -0.168711687,
                              -0.025163547, -0.017883785, 0.045508009, -0.084872976};
constexpr Golden kHgrnForwardPadded = {
    {0.001312363, 0.004672892, 0.008504152, 0.012774671, -0.000611463, 0.002821520, 0.007710870, 0.009663170},
    {0.020235168, 0.019495741, 0.028556309, 0.023516188, 0.003328267, 0.006634543, 0.016858777, 0.015722996},
    {0.009262714, 0.013278588, 0.022952207, 0.021988033, 0.003328267, 0.006634543, 0.016858777, 0.015722996},
};
constexpr double kHgrnForwardPaddedC[8] = {0.087900812, -0.127638327, 0.147215155, -0.168711687,
                                           0.022259078, -0.054636006, 0.099683245, -0.122594034};

// The script's gen(): scale·sin(phase + 7r + 3c), computed in double, stored as Real.
constexpr auto gen = &test::sin_mat;

CellConfig config(const std::string& type) {
  CellConfig c;
  c.type = type;
  c.hidden = kH;
  return c;
}

// The cell through the factory, every parameter overwritten from the script's formula: W = gen(I, k·H, 0.6, 1.0),
// b = gen(1, width of b, 0.3, 4.0), and IndRNN's u = 0.5 + gen(1, H, 0.4, 5.5). Every parameter must be one of these.
std::unique_ptr<Cell> build(const CellConfig& cfg, ParamStore& store) {
  auto cell = make_cell(cfg, kI, store, "golden");
  for (const auto& p : store.all()) {
    const std::string letter = p->name.substr(p->name.rfind('/') + 1);
    if (letter == "W") p->value = gen(p->value.rows(), p->value.cols(), 0.6, 1.0);
    else if (letter == "b") p->value = gen(1, p->value.cols(), 0.3, 4.0);
    else if (letter == "u") p->value = (gen(1, kH, 0.4, 5.5).array() + Real(0.5)).matrix();
    else ADD_FAILURE() << p->name << " has no golden value";
  }
  return cell;
}

struct Run {
  Mat h_all;   // [T*B, H]
  Mat c;       // [B, H], the last memory (empty without)
};

Run run(const Cell& cell, Dir dir, const std::vector<Index>& lengths) {
  Graph g(Mode::kInfer);
  CellState init{g.constant(gen(kB, kH, 0.5, 2.0)), cell.has_memory() ? g.constant(gen(kB, kH, 0.5, 2.5)) : Var{}};
  const bool padded = lengths[0] < kT || lengths[1] < kT;
  SeqOut out = run_rnn(cell, g.constant(gen(kT * kB, kI, 1.0, 0.3)),
                       padded ? test::time_major_mask(kT, lengths) : Mat(), kB, dir, init);
  return {out.h_all.val(), cell.has_memory() ? out.last.c.val() : Mat()};
}

double max_diff(const Run& r, const Golden& want, const double* want_c = nullptr) {
  double m = 0;
  for (Index t = 0; t < kT; ++t)
    for (Index b = 0; b < kB; ++b)
      for (Index j = 0; j < kH; ++j)
        m = std::max(m, std::abs(static_cast<double>(r.h_all(t * kB + b, j)) - want[t][b * kH + j]));
  if (want_c)
    for (Index k = 0; k < kB * kH; ++k) m = std::max(m, std::abs(static_cast<double>(r.c.data()[k]) - want_c[k]));
  return m;
}

void expect_golden(const CellConfig& cfg, Dir dir, const std::vector<Index>& lengths, const Golden& want,
                   const double* want_c = nullptr) {
  ParamStore store;
  auto cell = build(cfg, store);
  const Run r = run(*cell, dir, lengths);
  ASSERT_EQ(r.h_all.rows(), kT * kB);
  EXPECT_LT(max_diff(r, want, want_c), kTol);
  EXPECT_EQ(want_c != nullptr, cell->has_memory());
}

const std::vector<Index> kFull{kT, kT}, kPadded{kT, 2};

TEST(CellLinearGolden, MinGru) {
  expect_golden(config("mingru"), Dir::kForward, kFull, kMinGru);
  expect_golden(config("mingru"), Dir::kBackward, kPadded, kMinGruBackwardPadded);
}

TEST(CellLinearGolden, MinLstm) {
  expect_golden(config("minlstm"), Dir::kForward, kFull, kMinLstm);
  CellConfig plain = config("minlstm");
  plain.normalize_gates = false;
  plain.candidate = CellCandidate::kIdentity;
  expect_golden(plain, Dir::kForward, kFull, kMinLstmNoNormIdentity);
}

TEST(CellLinearGolden, Qrnn) {
  expect_golden(config("qrnn"), Dir::kForward, kFull, kQrnn, kQrnnC);
  CellConfig w2 = config("qrnn");
  w2.filter_width = 2;
  expect_golden(w2, Dir::kForward, kFull, kQrnnW2, kQrnnW2C);
  expect_golden(w2, Dir::kBackward, kPadded, kQrnnW2BackwardPadded, kQrnnW2BackwardPaddedC);
}

TEST(CellLinearGolden, IndRnn) { expect_golden(config("indrnn"), Dir::kForward, kFull, kIndRnn); }

TEST(CellLinearGolden, Hgrn) {
  CellConfig c = config("hgrn");
  c.forget_lower_bound = 0.3;
  expect_golden(c, Dir::kForward, kFull, kHgrn, kHgrnC);
  expect_golden(c, Dir::kForward, kPadded, kHgrnForwardPadded, kHgrnForwardPaddedC);
}

// --- the comparison discriminates: each wrong form misses its golden ------------------------------------------

double miss(const CellConfig& cfg, Dir dir, const std::vector<Index>& lengths, const Golden& want,
            const double* want_c = nullptr, void (*tweak)(ParamStore&) = nullptr) {
  ParamStore store;
  auto cell = build(cfg, store);
  if (tweak) tweak(store);
  return max_diff(run(*cell, dir, lengths), want, want_c);
}

TEST(CellLinearGolden, WrongFormsMissTheGolden) {
  CellConfig no_norm = config("minlstm");
  no_norm.normalize_gates = false;
  EXPECT_GT(miss(no_norm, Dir::kForward, kFull, kMinLstm), kMiss) << "minLSTM without f/(f+i)";
  CellConfig tanh_candidate = config("mingru");
  tanh_candidate.candidate = CellCandidate::kTanh;
  EXPECT_GT(miss(tanh_candidate, Dir::kForward, kFull, kMinGru), kMiss) << "tanh in place of g";
  CellConfig w1 = config("qrnn");
  EXPECT_GT(miss(w1, Dir::kForward, kFull, kQrnnW2, kQrnnW2C), kMiss) << "width 1 in place of 2";
  CellConfig w2 = config("qrnn");
  w2.filter_width = 2;
  EXPECT_GT(miss(w2, Dir::kBackward, kPadded, kQrnnW2, kQrnnW2C), kMiss) << "the neighbour of the wrong side";
  // The reference code's ForgetMult convention, c = f ⊙ z + (1 − f) ⊙ c_prev, is σ(−a_f) in place of σ(a_f).
  EXPECT_GT(miss(config("qrnn"), Dir::kForward, kFull, kQrnn, kQrnnC,
                 [](ParamStore& s) {
                   s.get("golden/qrnn/W").value.middleCols(kH, kH) *= -1;
                   s.get("golden/qrnn/b").value.middleCols(kH, kH) *= -1;
                 }),
            kMiss)
      << "the forget gate's convention swapped";
  EXPECT_GT(miss(config("hgrn"), Dir::kForward, kFull, kHgrn, kHgrnC), kMiss) << "no lower bound (γ = 0)";
}

}  // namespace
}  // namespace twin::cells_linear_golden
