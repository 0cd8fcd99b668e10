#include "base/gemm.h"

#include "base/check.h"
#include "base/gemm_blis.h"
#include "base/gemm_dnnl.h"
#include "base/profile.h"
#include "base/threads.h"

#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <string>

namespace twin {

namespace {
std::atomic<std::uint64_t> g_gemm_flops{0};

// Eigen's thread count is process-wide; small products set it to 1 for their duration only.
struct SerialEigen {
  int saved = Eigen::nbThreads();
  SerialEigen() { Eigen::setNbThreads(1); }
  ~SerialEigen() { Eigen::setNbThreads(saved); }
};
}  // namespace

namespace {
// OpenBLAS 0.3.21's AVX-512 cores; any other core name is a narrower kernel than an AVX-512 Eigen build.
bool avx512_core(std::string name) {
  for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return name == "skylakex" || name == "cooperlake" || name == "sapphirerapids";
}

// Whether TWIN_GEMM_BACKENDS chose the backends (then a library left out is "disabled", not "untrusted").
bool g_from_variable = false;

GemmBackends& backends_in_use() {
  static GemmBackends b = [] {
    const char* v = std::getenv("TWIN_GEMM_BACKENDS");
    g_from_variable = v != nullptr && std::string(v) != "detect";
    return parse_gemm_backends(v);
  }();
  return b;
}
}  // namespace

GemmBackends parse_gemm_backends(const char* value) {
  if (value == nullptr || std::string(value) == "detect") return detected_gemm_backends();
  GemmBackends b{false, false, false};
  const std::string s = value;
  // The names are the same in every build (so is the message for a name no build knows); a library this
  // build lacks is its own error, saying how to build with it.
  for (std::size_t start = 0; start <= s.size();) {
    const std::size_t comma = std::min(s.find(',', start), s.size());
    const std::string name = s.substr(start, comma - start);
    start = comma + 1;
    if (name == "eigen") continue;
    if (name == "blas") {
      b.blas = true;
    } else if (name == "blis") {
      TW_CHECK(blis_available(), "TWIN_GEMM_BACKENDS=", s,
               ": 'blis': this build has no BLIS (install libblis-openmp-dev and configure again)");
      b.blis = true;
    } else if (name == "dnnl") {
      TW_CHECK(dnnl_available(), "TWIN_GEMM_BACKENDS=", s,
               ": 'dnnl': this build has no oneDNN (install libdnnl-dev and configure with -DTW_WITH_DNNL=ON; "
               "float builds only)");
      b.dnnl = true;
    } else {
      TW_FAIL("TWIN_GEMM_BACKENDS=", s, ": '", name,
              "' is not one of detect, eigen, blas, blis, dnnl (comma-separated)");
    }
  }
  return b;
}

GemmBackends detected_gemm_backends() {
  GemmBackends b;
  b.blis = blis_available() && blis_arch() != "generic";
  b.dnnl = dnnl_available() && dnnl_isa_tuned();
#ifdef EIGEN_VECTORIZE_AVX512
  b.blas = avx512_core(openblas_get_corename());
#endif
  return b;
}

GemmBackends gemm_backends() { return backends_in_use(); }
void set_gemm_backends(const GemmBackends& b) {
  // No BLIS or oneDNN route in a build without it.
  backends_in_use() = GemmBackends{b.blis && blis_available(), b.blas, b.dnnl && dnnl_available()};
}

std::string gemm_backends_text() {
  const GemmBackends b = gemm_backends();   // first: reading the variable sets g_from_variable
  return gemm_backends_text(b, g_from_variable);
}

std::string gemm_backends_text(const GemmBackends& b, bool from_variable) {
  // Why a library is left out: the probe's reason when the probe leaves it out; else it was disabled, by
  // TWIN_GEMM_BACKENDS or by a set_gemm_backends() call (a test, a benchmark). Never the probe's reason for a
  // library the probe trusts (a tuned BLIS left out by TWIN_GEMM_BACKENDS=blas is not "reference kernels").
  const GemmBackends probe = detected_gemm_backends();
  const auto unused = [&](bool probed, const char* probe_reason) {
    std::string why = from_variable ? "disabled by TWIN_GEMM_BACKENDS" : probed ? "disabled" : "";
    if (!probed) why += (why.empty() ? "" : "; ") + std::string(probe_reason);
    return "(unused: " + why + ")";
  };
  std::string eigen = "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) +
                      "." + std::to_string(EIGEN_MINOR_VERSION) + " (" + Eigen::SimdInstructionSetsInUse() + ")";
  std::string blas = std::string("OpenBLAS ") + openblas_get_corename() + " kernels " +
                     (b.blas ? "(large products)" : unused(probe.blas, "narrower than Eigen's vectors"));
  std::string text = eigen + " + " + blas;
  if (blis_available())
    text += " + BLIS " + blis_arch() + " " + (b.blis ? "(thin products)" : unused(probe.blis, "reference kernels"));
  if (dnnl_available())
    text += " + oneDNN " + dnnl_version() + " " + dnnl_isa() + " " +
            (b.dnnl ? kDnnlTakes : unused(probe.dnnl, "kernels narrower than AVX2"));
  return text;
}

GemmRoute gemm_route(Index m, Index n, Index k, const GemmBackends& b, int threads) {
  const double work = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  if (b.dnnl && work >= kDnnlMinWork) return GemmRoute::kDnnl;
  if (m < kThinRows && work >= kBlisMinWork && b.blis) return GemmRoute::kBlis;
  if (!b.blas) return GemmRoute::kEigen;
  if (threads == 1) return work >= kBlasMinWorkOneThread ? GemmRoute::kBlas : GemmRoute::kEigen;
  return m >= kThinRows && work >= kBlasMinWork ? GemmRoute::kBlas : GemmRoute::kEigen;
}

GemmRoute gemm_route(Index m, Index n, Index k) { return gemm_route(m, n, k, backends_in_use(), omp_get_max_threads()); }

const char* gemm_route_name(GemmRoute r) {
  switch (r) {
    case GemmRoute::kBlas: return "blas";
    case GemmRoute::kBlis: return "blis";
    case GemmRoute::kDnnl: return "dnnl";
    case GemmRoute::kEigen: break;
  }
  return "eigen";
}

std::uint64_t gemm_flops() { return g_gemm_flops.load(std::memory_order_relaxed); }
void reset_gemm_flops() { g_gemm_flops.store(0, std::memory_order_relaxed); }

namespace {
void gemm_routed(const Mat& a, bool ta, const Mat& b, bool tb, Mat& c, Real alpha, Real beta, Index m, Index n,
                 Index k) {
  const GemmRoute route = gemm_route(m, n, k);
  if (route == GemmRoute::kBlas) {
    const auto tra = ta ? CblasTrans : CblasNoTrans, trb = tb ? CblasTrans : CblasNoTrans;
#ifdef TW_REAL_DOUBLE
    cblas_dgemm(CblasRowMajor, tra, trb, m, n, k, alpha, a.data(), a.cols(), b.data(), b.cols(), beta, c.data(), c.cols());
#else
    cblas_sgemm(CblasRowMajor, tra, trb, m, n, k, alpha, a.data(), a.cols(), b.data(), b.cols(), beta, c.data(), c.cols());
#endif
    return;
  }
  if (route == GemmRoute::kBlis) {
    gemm_blis(a, ta, b, tb, c, alpha, beta);
    return;
  }
  if (route == GemmRoute::kDnnl) {
    if (dnnl_matmul_takes(m, k, ta, tb)) gemm_dnnl_matmul(a, ta, b, tb, c, alpha, beta);
    else gemm_dnnl(a, ta, b, tb, c, alpha, beta);
    return;
  }
  gemm_eigen(a, ta, b, tb, c, alpha, beta);
}
}  // namespace

namespace {
// Runs one product, adding its 2 m n k flops to the counter and, when profiling, its time under the route name
// that route() gives.
template <typename Run, typename Route>
void counted(Index m, Index n, Index k, bool ta, bool tb, Run run, Route route) {
  g_gemm_flops.fetch_add(2 * static_cast<std::uint64_t>(m) * static_cast<std::uint64_t>(n) *
                             static_cast<std::uint64_t>(k), std::memory_order_relaxed);
  if (!profile::enabled()) {
    run();
    return;
  }
  const Stopwatch sw;
  run();
  profile::add_gemm(m, n, k, ta, tb, route(), sw.seconds());
}
}  // namespace

void gemm(const Mat& a, bool ta, const Mat& b, bool tb, Mat& c, Real alpha, Real beta) {
  const Index m = ta ? a.cols() : a.rows();
  const Index k = ta ? a.rows() : a.cols();
  const Index kb = tb ? b.cols() : b.rows();
  const Index n = tb ? b.rows() : b.cols();
  TW_CHECK(k == kb, "gemm: inner dimensions differ: ", shape_str(a), (ta ? "^T" : ""), " x ", shape_str(b),
           (tb ? "^T" : ""));
  TW_CHECK(c.rows() == m && c.cols() == n, "gemm: output ", shape_str(c), " for ", m, "x", n);
  if (m == 0 || n == 0) return;
  counted(m, n, k, ta, tb, [&] { gemm_routed(a, ta, b, tb, c, alpha, beta, m, n, k); }, [&] {
    const GemmRoute r = gemm_route(m, n, k);
    return r == GemmRoute::kDnnl && dnnl_matmul_takes(m, k, ta, tb) ? "dnnl-matmul" : gemm_route_name(r);
  });
}

ReusedOperand::~ReusedOperand() { delete packed_; }

void ReusedOperand::new_tape() {
  uses_ = 0;
  if (packed_ != nullptr) packed_->mark_stale();
}

void gemm_reused(const Mat& a, ReusedOperand& r, Mat& c, Real alpha, Real beta) {
  const Mat& b = *r.b_;
  const bool tb = r.trans_;
  const Index m = a.rows(), k = a.cols(), n = tb ? b.rows() : b.cols();
  TW_CHECK(k == (tb ? b.cols() : b.rows()), "gemm_reused: inner dimensions differ: ", shape_str(a), " x ",
           shape_str(b), (tb ? "^T" : ""));
  TW_CHECK(c.rows() == m && c.cols() == n, "gemm_reused: output ", shape_str(c), " for ", m, "x", n);
  ++r.uses_;
  const bool pack = r.uses_ >= 2 && m > 0 && m < kThinRows && gemm_route(m, n, k) == GemmRoute::kDnnl;
  if (!pack) {
    gemm(a, false, b, tb, c, alpha, beta);
    return;
  }
  if (r.packed_ != nullptr && (r.packed_->k() != k || r.packed_->n() != n)) {   // B was resized: start over
    delete r.packed_;
    r.packed_ = nullptr;
  }
  if (r.packed_ == nullptr) r.packed_ = new DnnlPackedB(b, tb);
  counted(m, n, k, false, tb, [&] { r.packed_->gemm(a, c, alpha, beta); }, [] { return "dnnl-packed"; });
}

void gemm_eigen(const Mat& a, bool ta, const Mat& b, bool tb, Mat& c, Real alpha, Real beta) {
  const Index m = c.rows(), n = c.cols(), k = ta ? a.rows() : a.cols();
  const SerialEigen serial;
  // Column blocks of C are independent products: with threads to spare, each thread runs Eigen's serial
  // kernel on its own block (its own share of B to pack). Eigen's own split of these thin products ran at
  // half the serial speed; this one is measured in results/gemm_bench.md ("eigen-split").
  auto block = [&](Index c0, Index nc) {
    auto cb = c.middleCols(c0, nc);
    if (beta == 0) cb.setZero();
    else if (beta != 1) cb *= beta;
    if (!ta && !tb) cb.noalias() += alpha * a * b.middleCols(c0, nc);
    else if (ta && !tb) cb.noalias() += alpha * a.transpose() * b.middleCols(c0, nc);
    else if (!ta && tb) cb.noalias() += alpha * a * b.middleRows(c0, nc).transpose();
    else cb.noalias() += alpha * a.transpose() * b.middleRows(c0, nc).transpose();
  };
  // At least 64 columns per block; no parallel region at all below the split size (even an inactive one
  // costs about a microsecond, as much as a tiny product).
  const int parts = static_cast<double>(m) * n * k >= kEigenSplitMinWork && k >= 64 && !omp_in_parallel()
                        ? std::max(1, std::min<int>(omp_get_max_threads(), static_cast<int>(n / 64)))
                        : 1;
  if (parts == 1) {
    block(0, n);
    return;
  }
#pragma omp parallel for schedule(static) num_threads(parts)
  for (int p = 0; p < parts; ++p) block(n * p / parts, n * (p + 1) / parts - n * p / parts);
}

}  // namespace twin
