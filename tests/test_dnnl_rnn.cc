// kernel = "dnnl" (ops/dnnl_rnn.h, rnn/dnnl_layer.h): oneDNN's LSTM and GRU primitives as one node per layer and
// direction. In a build with oneDNN: equal to the suite's own kernels (forward outputs, final states, every gradient:
// x, W, U, U_h, b and the initial states) for 1 and 2 stacked layers in both directions, with and without biases;
// their f32 gradients against f64 central differences of the cell equations written here in double (oneDNN has no
// double: the op cannot be in twin_gradcheck); padded batches and gate records run the suite's kernels (no oneDNN
// node); inference values equal training values. In every build: the route (kernel='dnnl' in a build without oneDNN
// is refused naming the key; a cell without the option refuses it).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "ops/dnnl_rnn.h"
#include "ops/op_names.h"
#include "ops/ops.h"
#include "rnn/cell_factory.h"
#include "rnn/stacked.h"
#include "test_util.h"

namespace twin {
namespace {

using test::time_major_mask;

constexpr int kI = 3, kH = 4;
constexpr Index kT = 5, kB = 3;

// One of the suite's LSTM/GRU forms, as cell config fields.
struct Form {
  std::string type;
  bool reset_after = true;
  bool bias = true;
  std::string label() const {
    return type + (type == "gru" ? (reset_after ? "_after" : "_before") : "") + (bias ? "" : "_nobias");
  }
};
const std::vector<Form> kForms{{"lstm"}, {"lstm", true, false}, {"gru"}, {"gru", false}, {"gru", true, false}};

CellConfig config(const Form& f, CellKernel kernel) {
  CellConfig cfg;
  cfg.type = f.type;
  cfg.hidden = kH;
  cfg.init_scale = 0.5;
  cfg.bias_init = f.bias ? BiasInit::kUniform : BiasInit::kZero;
  if (!f.bias) cfg.bias = CellBias::kNone;
  if (f.type == "gru") cfg.gru_reset_after = f.reset_after;
  cfg.kernel = kernel;
  return cfg;
}

// A stack of `layers` cells of one form and kernel, with x and every initial state as parameters of the same store
// (so that their gradients are compared too), all filled from fixed seeds: two kernels get equal values.
struct Stack {
  ParamStore store;
  std::vector<std::unique_ptr<Cell>> cells;
  Param* x = nullptr;
  std::vector<std::pair<Param*, Param*>> init;   // h0, c0 (LSTM) per layer
  Stack(const Form& f, CellKernel kernel, int layers) {
    x = &store.add("x", kT * kB, kI, [](Mat& m, Rng&) { m = test::uniform_mat(m.rows(), m.cols(), 7); });
    for (int l = 0; l < layers; ++l) {
      const std::string s = "l" + std::to_string(l);
      cells.push_back(make_cell(config(f, kernel), l == 0 ? kI : kH, store, s));
      const auto fill = [l](std::uint64_t k) {
        return [l, k](Mat& m, Rng&) { m = test::uniform_mat(m.rows(), m.cols(), 100 + 10 * l + k); };
      };
      Param* h0 = &store.add(s + "/h0", kB, kH, fill(1));
      Param* c0 = f.type == "lstm" ? &store.add(s + "/c0", kB, kH, fill(2)) : nullptr;
      init.emplace_back(h0, c0);
    }
  }
};

struct Result {
  Mat value;                // [h_all ; each layer's last h (and c)]
  std::vector<Mat> grads;   // one per parameter, in store order
  int dnnl_nodes = 0;       // oneDNN nodes on the tape (kFloatOnlyOps: dnnl_lstm, dnnl_gru)
};

Result run(Stack& s, Dir dir, const Mat& mask, Mode mode = Mode::kTrain) {
  s.store.zero_grad();
  Graph g(mode);
  std::vector<const Cell*> layers;
  std::vector<CellState> init;
  for (size_t l = 0; l < s.cells.size(); ++l) {
    layers.push_back(s.cells[l].get());
    const auto [h0, c0] = s.init[l];
    init.push_back({g.param(*h0), c0 ? g.param(*c0) : Var{}});
  }
  StackedOut out = run_stacked(layers, g.param(*s.x), mask, kB, dir, init);
  std::vector<Var> parts{out.h_all};
  for (const CellState& st : out.last) {
    parts.push_back(st.h);
    if (st.c.valid()) parts.push_back(st.c);
  }
  Var y = stack_rows(parts);
  Result r{y.val(), {}, 0};
  for (NodeId id = 0; id < static_cast<NodeId>(g.size()); ++id)
    for (const char* op : kFloatOnlyOps) r.dnnl_nodes += std::string(g.op(id)) == op;
  if (mode == Mode::kTrain) {
    Mat weights = test::uniform_mat(y.rows(), y.cols(), 99);
    g.backward(sum_all(y * g.constant(weights)));
    for (const auto& p : s.store.all()) r.grads.push_back(p->grad);
  }
  return r;
}

void expect_close(const Result& a, const Result& b, const ParamStore& store, double tol, const std::string& what) {
  ASSERT_EQ(a.value.rows(), b.value.rows()) << what;
  EXPECT_LE((a.value - b.value).cwiseAbs().maxCoeff(), tol) << what << ": values differ";
  ASSERT_EQ(a.grads.size(), b.grads.size()) << what;
  for (size_t i = 0; i < a.grads.size(); ++i) {
    EXPECT_LE((a.grads[i] - b.grads[i]).cwiseAbs().maxCoeff(), tol)
        << what << ": gradient of " << store.all()[i]->name << " differs";
    EXPECT_GT(a.grads[i].cwiseAbs().maxCoeff(), 0) << what << ": gradient of " << store.all()[i]->name << " is 0";
  }
}

#define TW_NEEDS_DNNL() \
  if (!dnnl_rnn_available()) GTEST_SKIP() << "this build has no oneDNN (TW_WITH_DNNL=OFF or libdnnl-dev missing)"

TEST(DnnlRnn, EqualsTheSuiteKernelsInEveryFormLayerCountAndDirection) {
  TW_NEEDS_DNNL();
  for (const Form& f : kForms)
    for (int layers : {1, 2})
      for (Dir dir : {Dir::kForward, Dir::kBackward}) {
        const std::string what = f.label() + " layers=" + std::to_string(layers) +
                                 (dir == Dir::kForward ? " forward" : " backward");
        Stack suite(f, CellKernel::kSuite, layers), dnnl(f, CellKernel::kDnnl, layers);
        const Result a = run(suite, dir, Mat()), b = run(dnnl, dir, Mat());
        EXPECT_EQ(a.dnnl_nodes, 0) << what;
        EXPECT_EQ(b.dnnl_nodes, layers) << what;
        expect_close(b, a, dnnl.store, 2e-5, what);
      }
}

TEST(DnnlRnn, BidirectionalEqualsTheSuiteKernels) {
  TW_NEEDS_DNNL();
  for (const Form& f : {kForms[0], kForms[2]}) {
    Stack suite_f(f, CellKernel::kSuite, 1), suite_b(f, CellKernel::kSuite, 1);
    Stack dnnl_f(f, CellKernel::kDnnl, 1), dnnl_b(f, CellKernel::kDnnl, 1);
    const auto bi = [](Stack& fw, Stack& bw) {
      Graph g(Mode::kInfer);
      const Mat x = fw.x->value;
      return Mat(run_birnn(*fw.cells[0], *bw.cells[0], g.constant(x), Mat(), kB).h_all.val());
    };
    EXPECT_LE((bi(dnnl_f, dnnl_b) - bi(suite_f, suite_b)).cwiseAbs().maxCoeff(), 2e-5) << f.label();
  }
}

TEST(DnnlRnn, AllOnesMaskRunsOneDnnAndPaddedBatchesRunTheSuiteKernels) {
  TW_NEEDS_DNNL();
  const Mat ones = Mat::Ones(kT * kB, 1), padded = time_major_mask(kT, {5, 2, 3});
  for (const Form& f : {kForms[0], kForms[2], kForms[3]})
    for (Dir dir : {Dir::kForward, Dir::kBackward}) {
      Stack suite(f, CellKernel::kSuite, 2), dnnl(f, CellKernel::kDnnl, 2);
      const Result a1 = run(suite, dir, ones), b1 = run(dnnl, dir, ones);
      EXPECT_EQ(b1.dnnl_nodes, 2) << f.label();
      expect_close(b1, a1, dnnl.store, 2e-5, f.label() + " all-ones mask");
      const Result ap = run(suite, dir, padded), bp = run(dnnl, dir, padded);
      EXPECT_EQ(bp.dnnl_nodes, 0) << f.label();
      expect_close(bp, ap, dnnl.store, 0, f.label() + " padded");   // the same kernels: bit for bit
    }
}

TEST(DnnlRnn, GateRecordRunsTheSuiteKernels) {
  TW_NEEDS_DNNL();
  Stack dnnl(kForms[0], CellKernel::kDnnl, 1);
  Graph g(Mode::kInfer);
  SeqOut out = run_rnn(*dnnl.cells[0], g.constant(dnnl.x->value), Mat(), kB, Dir::kForward, {}, true);
  EXPECT_EQ(out.gates.at("f").size(), static_cast<size_t>(kT));
}

TEST(DnnlRnn, InferenceValuesEqualTrainingValues) {
  TW_NEEDS_DNNL();
  for (const Form& f : kForms) {
    Stack dnnl(f, CellKernel::kDnnl, 2);
    const Result tr = run(dnnl, Dir::kForward, Mat()), inf = run(dnnl, Dir::kForward, Mat(), Mode::kInfer);
    EXPECT_EQ(inf.dnnl_nodes, 2);
    EXPECT_LE((tr.value - inf.value).cwiseAbs().maxCoeff(), 1e-6) << f.label();
  }
}

// ---- the f64 reference: the cell equations (rnn/lstm.h, rnn/gru.h) in double, one layer, forward direction ----
using MatD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;   // entry order as Mat
double sig(double v) { return 1 / (1 + std::exp(-v)); }

// [every step's h ; h_last ; c_last (LSTM)] of one layer; p: W, U, (U_h), (b), h0, (c0) in the store's order.
MatD reference(const Form& f, const MatD& x, const std::vector<MatD>& p) {
  size_t k = 0;
  const MatD& w = p[k++];
  const MatD& u = p[k++];
  const MatD* u_h = f.type == "gru" && !f.reset_after ? &p[k++] : nullptr;
  const MatD b = f.bias ? p[k++] : MatD::Zero(1, w.cols());
  MatD h = p[k++];
  MatD c = f.type == "lstm" ? p[k++] : MatD();
  MatD y(kT * kB + (f.type == "lstm" ? 2 : 1) * kB, kH);
  for (Index t = 0; t < kT; ++t) {
    const MatD a = (x.middleRows(t * kB, kB) * w).rowwise() + b.row(0);
    const MatD s = h * u;
    MatD hn(kB, kH);
    for (Index r = 0; r < kB; ++r)
      for (Index j = 0; j < kH; ++j) {
        if (f.type == "lstm") {
          const double i = sig(a(r, j) + s(r, j)), fg = sig(a(r, kH + j) + s(r, kH + j));
          const double o = sig(a(r, 2 * kH + j) + s(r, 2 * kH + j)), ct = std::tanh(a(r, 3 * kH + j) + s(r, 3 * kH + j));
          c(r, j) = fg * c(r, j) + i * ct;
          hn(r, j) = o * std::tanh(c(r, j));
          continue;
        }
        const double z = sig(a(r, j) + s(r, j)), rg = sig(a(r, kH + j) + s(r, kH + j));
        double sh = 0;
        if (u_h)
          for (Index m = 0; m < kH; ++m) sh += sig(a(r, kH + m) + s(r, kH + m)) * h(r, m) * (*u_h)(m, j);   // ((r ⊙ h) U_h)_j
        else
          sh = rg * s(r, 2 * kH + j);
        const double ht = std::tanh(a(r, 2 * kH + j) + sh);
        hn(r, j) = h(r, j) + z * (ht - h(r, j));
      }
    h = hn;
    y.middleRows(t * kB, kB) = h;
  }
  y.middleRows(kT * kB, kB) = h;
  if (f.type == "lstm") y.middleRows((kT + 1) * kB, kB) = c;
  return y;
}

TEST(DnnlRnn, GradientsMatchF64CentralDifferencesOfTheCellEquations) {
  TW_NEEDS_DNNL();
  for (const Form& f : kForms) {
    Stack dnnl(f, CellKernel::kDnnl, 1);
    const Result r = run(dnnl, Dir::kForward, Mat());
    ASSERT_EQ(r.dnnl_nodes, 1);
    const MatD weights = test::uniform_mat(r.value.rows(), r.value.cols(), 99).cast<double>();
    // The store's order: x, the cell's parameters, h0, c0.
    std::vector<MatD> p;
    for (const auto& q : dnnl.store.all()) p.push_back(q->value.cast<double>());
    const auto loss = [&](const std::vector<MatD>& v) {
      return reference(f, v[0], std::vector<MatD>(v.begin() + 1, v.end())).cwiseProduct(weights).sum();
    };
    EXPECT_LE((reference(f, p[0], std::vector<MatD>(p.begin() + 1, p.end())) - r.value.cast<double>())
                  .cwiseAbs()
                  .maxCoeff(),
              1e-5)
        << f.label() << ": values";
    double worst = 0;
    for (size_t k = 0; k < p.size(); ++k)
      for (Index e = 0; e < p[k].size(); ++e) {
        constexpr double kEps = 1e-6;
        std::vector<MatD> v = p;
        v[k].data()[e] += kEps;
        const double up = loss(v);
        v[k].data()[e] -= 2 * kEps;
        const double numeric = (up - loss(v)) / (2 * kEps);
        const double analytic = r.grads[k].data()[e];
        // f32 gradients of a sum of ~T·B·H terms: absolute 2e-5 plus 1e-4 relative.
        const double err = std::abs(analytic - numeric) / (2e-5 + 1e-4 * std::abs(numeric));
        worst = std::max(worst, err);
        EXPECT_LE(err, 1.0) << f.label() << " " << dnnl.store.all()[k]->name << "[" << e << "]: " << analytic
                            << " vs f64 " << numeric;
      }
    EXPECT_GT(worst, 0) << f.label();
  }
}

// ---- the route, in every build ----

TEST(DnnlRnnRoute, KernelDnnlNeedsOneDnnAndNamesTheKey) {
  for (const Form& f : {kForms[0], kForms[2]}) {
    ParamStore store;
    if (dnnl_rnn_available()) {
      EXPECT_NO_THROW(make_cell(config(f, CellKernel::kDnnl), kI, store, "s")) << f.type;
      continue;
    }
    try {
      make_cell(config(f, CellKernel::kDnnl), kI, store, "s");
      ADD_FAILURE() << f.type << ": kernel='dnnl' was accepted in a build without oneDNN";
    } catch (const Error& e) {
      EXPECT_PRED2(test::contains, std::string(e.what()), "cell '" + f.type + "': kernel='dnnl' needs a build with oneDNN");
    }
  }
}

TEST(DnnlRnnRoute, CellsWithoutTheOptionRefuseIt) {
  CellConfig cfg;
  cfg.type = "atr";
  cfg.hidden = kH;
  cfg.kernel = CellKernel::kDnnl;
  ParamStore store;
  try {
    make_cell(cfg, kI, store, "s");
    ADD_FAILURE() << "atr accepted kernel='dnnl'";
  } catch (const Error& e) {
    EXPECT_PRED2(test::contains, std::string(e.what()), "cell 'atr' has no option kernel='dnnl'");
  }
}

TEST(DnnlRnnRoute, SuiteKernelNeverRecordsAOneDnnNode) {
  Stack suite(kForms[0], CellKernel::kSuite, 1);
  EXPECT_EQ(run(suite, Dir::kForward, Mat()).dnnl_nodes, 0);
}

}  // namespace
}  // namespace twin
