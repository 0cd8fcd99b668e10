#include "base/gemm_blis.h"

#ifdef TW_HAVE_BLIS
#include <blis.h>
#endif

#include <cstdint>
#include <cstring>
#include <vector>

#include "base/check.h"

namespace twin {

std::size_t blis_read_margin_bytes(bool trans_a, bool trans_b, Index ld, char operand) {
  // Measured over-reads (see the header) with a safety factor: 64 floats past any operand; for A with B
  // transposed, one more row of A (the upstream bug reads the next row's element in the k-edge loop).
  std::size_t floats = 64;
  if (operand == 'a' && !trans_a && trans_b) floats += static_cast<std::size_t>(ld) + 512;
  return floats * sizeof(Real);
}

namespace {
constexpr std::uintptr_t kPage = 4096;   // the smallest x86-64 page: a boundary where the next page may be unmapped

// Readable bytes from `end` to the next page boundary (0 when `end` is on one).
std::size_t room_to_page_end(const Real* end) {
  const auto u = reinterpret_cast<std::uintptr_t>(end);
  return static_cast<std::size_t>((kPage - u % kPage) % kPage);
}

// `data` (count values) as BLIS may read it: itself when `margin` bytes after it stay within its page, else a
// copy in `scratch` with the margin after it (scratch is per thread: products may run in parallel regions).
const Real* readable(const Real* data, std::size_t count, std::size_t margin, std::vector<Real>& scratch) {
  if (room_to_page_end(data + count) >= margin) return data;
  scratch.resize(count + margin / sizeof(Real) + 1);
  std::memcpy(scratch.data(), data, count * sizeof(Real));
  return scratch.data();
}
}  // namespace

#ifdef TW_HAVE_BLIS
bool blis_available() { return true; }
std::string blis_arch() { return bli_arch_string(bli_arch_query_id()); }
void blis_set_num_threads(int n) { bli_thread_set_num_threads(n); }

void gemm_blis_rows(bool ta, bool tb, Index m, Index n, Index k, Real alpha, const Real* a, Index lda,
                    const Real* b, Index ldb, Real beta, Real* c, Index ldc) {
  thread_local std::vector<Real> sa, sb, sc;
  const auto count = [](Index rows, Index ld) { return static_cast<std::size_t>(rows) * static_cast<std::size_t>(ld); };
  const Real* pa = readable(a, count(ta ? k : m, lda), blis_read_margin_bytes(ta, tb, lda, 'a'), sa);
  const Real* pb = readable(b, count(tb ? n : k, ldb), blis_read_margin_bytes(ta, tb, ldb, 'b'), sb);
  // C's copy carries C in (BLIS may read it even when beta = 0) and is copied back after the product.
  const std::size_t nc = count(m, ldc);
  Real* pc = const_cast<Real*>(readable(c, nc, blis_read_margin_bytes(ta, tb, ldc, 'c'), sc));
  // BLIS's typed API takes both strides, so row-major storage is rs = leading dimension, cs = 1, and
  // op(A) is A with its transpose flag (m, n, k are the dimensions of op(A) op(B)).
  const trans_t tra = ta ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE, trb = tb ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE;
  Real al = alpha, be = beta;
#ifdef TW_REAL_DOUBLE
  bli_dgemm(tra, trb, m, n, k, &al, const_cast<Real*>(pa), lda, 1, const_cast<Real*>(pb), ldb, 1, &be, pc, ldc, 1);
#else
  bli_sgemm(tra, trb, m, n, k, &al, const_cast<Real*>(pa), lda, 1, const_cast<Real*>(pb), ldb, 1, &be, pc, ldc, 1);
#endif
  if (pc != c) std::memcpy(c, pc, nc * sizeof(Real));
}

void gemm_blis(const Mat& a, bool ta, const Mat& b, bool tb, Mat& c, Real alpha, Real beta) {
  const Index k = ta ? a.rows() : a.cols();
  gemm_blis_rows(ta, tb, c.rows(), c.cols(), k, alpha, a.data(), a.cols(), b.data(), b.cols(), beta, c.data(),
                 c.cols());
}
#else
bool blis_available() { return false; }
std::string blis_arch() { return ""; }
void blis_set_num_threads(int) {}
void gemm_blis_rows(bool, bool, Index, Index, Index, Real, const Real*, Index, const Real*, Index, Real, Real*,
                    Index) {
  TW_FAIL("gemm_blis: this build has no BLIS (install libblis-openmp-dev and reconfigure)");
}
void gemm_blis(const Mat&, bool, const Mat&, bool, Mat&, Real, Real) {
  TW_FAIL("gemm_blis: this build has no BLIS (install libblis-openmp-dev and reconfigure)");
}
#endif

}  // namespace twin
