// gemm_blis_rows never lets Debian's BLIS 0.9 read past an operand into an unmapped page (core/base/gemm_blis.h):
// each operand in turn is placed so that it ends exactly at a PROT_NONE guard page (and a few values before one),
// over every transpose combination and the shapes whose edge cases made BLIS itself fault when called directly
// (m with a 1-row edge, k % 8 != 0 with B transposed, n = 1, n = 650 with large k). A read past the end would
// end the test binary with SIGSEGV; the results are checked against a double-precision reference too.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <tuple>
#include <vector>

#include "base/gemm_blis.h"

namespace twin {
namespace {

// `count` values ending `slack` values before a guard page; filled with a small deterministic pattern.
class Guarded {
 public:
  Guarded(std::size_t count, std::size_t slack) {
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    const std::size_t bytes = (count + slack) * sizeof(Real);
    pages_ = (bytes + page - 1) / page + 1;
    base_ = static_cast<char*>(mmap(nullptr, pages_ * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                                    -1, 0));
    EXPECT_NE(base_, MAP_FAILED);
    EXPECT_EQ(mprotect(base_ + (pages_ - 1) * page, page, PROT_NONE), 0);
    data_ = reinterpret_cast<Real*>(base_ + (pages_ - 1) * page - bytes);
    for (std::size_t i = 0; i < count + slack; ++i) data_[i] = static_cast<Real>((i * 7 + 3) % 11) / 8 - Real(0.6);
    page_ = page;
  }
  ~Guarded() { munmap(base_, pages_ * page_); }
  Guarded(const Guarded&) = delete;
  Guarded& operator=(const Guarded&) = delete;
  Real* data() { return data_; }

 private:
  char* base_ = nullptr;
  Real* data_ = nullptr;
  std::size_t pages_ = 0, page_ = 0;
};

double at(const Real* x, Index ld, Index r, Index c, bool t) { return t ? x[c * ld + r] : x[r * ld + c]; }

TEST(GemmBlisGuard, NoOperandIsReadPastItsEnd) {
  if (!blis_available()) GTEST_SKIP() << "this build has no BLIS (libblis-openmp-dev not installed)";
  const std::vector<std::tuple<Index, Index, Index>> shapes = {
      {10, 100, 300}, {1, 100, 300}, {7, 650, 301}, {10, 100, 9}, {20, 1, 650}, {16, 1, 17},
      {10, 650, 300}, {20, 650, 1950}, {3, 650, 301}, {13, 7, 3}};   // (m, n, k)
  int products = 0;
  for (const auto& [m, n, k] : shapes)
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (int guarded : {0, 1, 2})            // which operand ends at the guard page: A, B or C
          for (std::size_t slack : {0, 1, 3}) {   // values between its end and the guard page
            const Index lda = ta ? m : k, ldb = tb ? k : n, ldc = n;
            const std::size_t na = static_cast<std::size_t>(m * k), nb = static_cast<std::size_t>(k * n),
                              nc = static_cast<std::size_t>(m * n);
            Guarded a(na, guarded == 0 ? slack : 4096), b(nb, guarded == 1 ? slack : 4096),
                c(nc, guarded == 2 ? slack : 4096);
            std::vector<Real> c0(c.data(), c.data() + nc);
            gemm_blis_rows(ta, tb, m, n, k, Real(0.5), a.data(), lda, b.data(), ldb, Real(0.25), c.data(), ldc);
            ++products;
            double worst = 0;
            for (Index i = 0; i < m; ++i)
              for (Index j = 0; j < n; ++j) {
                double ref = 0.25 * c0[static_cast<std::size_t>(i * n + j)];
                for (Index p = 0; p < k; ++p) ref += 0.5 * at(a.data(), lda, i, p, ta) * at(b.data(), ldb, p, j, tb);
                worst = std::max(worst, std::abs(ref - c.data()[i * n + j]));
              }
            ASSERT_LT(worst, 1e-5 * static_cast<double>(k))
                << "m " << m << " n " << n << " k " << k << " ta " << ta << " tb " << tb << " guarded " << guarded;
          }
  EXPECT_EQ(products, 10 * 4 * 3 * 3);
}

// The margins: small for B and C, one row of A and more when B is transposed (the upstream k-edge bug).
TEST(GemmBlisGuard, ReadMargins) {
  EXPECT_EQ(blis_read_margin_bytes(false, false, 300, 'a'), 64 * sizeof(Real));
  EXPECT_EQ(blis_read_margin_bytes(false, true, 300, 'a'), (64 + 300 + 512) * sizeof(Real));
  EXPECT_EQ(blis_read_margin_bytes(true, true, 300, 'a'), 64 * sizeof(Real));
  EXPECT_EQ(blis_read_margin_bytes(false, true, 300, 'b'), 64 * sizeof(Real));
  EXPECT_EQ(blis_read_margin_bytes(false, true, 300, 'c'), 64 * sizeof(Real));
}

}  // namespace
}  // namespace twin
