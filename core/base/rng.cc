#include "base/rng.h"

#include <cmath>
#include <sstream>

#include "base/check.h"

namespace twin {

namespace {
// 53 random bits -> [0, 1). Written out instead of std::uniform_real_distribution so that
// the numbers are identical across standard library implementations.
double unit(std::mt19937_64& g) { return static_cast<double>(g() >> 11) * (1.0 / 9007199254740992.0); }
}  // namespace

Real Rng::uniform(Real lo, Real hi) { return static_cast<Real>(lo + (hi - lo) * unit(gen_)); }

Real Rng::normal(Real mean, Real stddev) {
  // Box-Muller; one draw per call keeps the stream position simple to reason about.
  double u1 = unit(gen_), u2 = unit(gen_);
  if (u1 < 1e-300) u1 = 1e-300;
  double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  return static_cast<Real>(mean + stddev * z);
}

bool Rng::bernoulli(double p) { return unit(gen_) < p; }

std::int64_t Rng::uniform_int(std::int64_t lo, std::int64_t hi) {
  TW_CHECK(hi >= lo, "Rng::uniform_int: empty range [", lo, ", ", hi, "]");
  // Unsigned arithmetic throughout: hi - lo overflows int64 for wide ranges (UB, and GCC then drops the
  // span == 0 test and divides by zero). The full range wraps span to 0.
  const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1;
  if (span == 0) return static_cast<std::int64_t>(gen_());
  // Rejection sampling to avoid modulo bias.
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % span;
  std::uint64_t r;
  do r = gen_(); while (r >= limit);
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + r % span);   // modular, C++20-defined
}

void Rng::fill_uniform(Mat& m, Real lo, Real hi) {
  for (Index i = 0; i < m.size(); ++i) m.data()[i] = uniform(lo, hi);
}

void Rng::fill_normal(Mat& m, Real mean, Real stddev) {
  for (Index i = 0; i < m.size(); ++i) m.data()[i] = normal(mean, stddev);
}

std::string Rng::save() const {
  std::ostringstream os;
  os << gen_;
  return os.str();
}

void Rng::restore(const std::string& state) {
  std::istringstream is(state);
  std::mt19937_64 g;
  is >> g;
  TW_CHECK(!is.fail(), "Rng::restore: malformed generator state (", state.size(), " chars)");
  gen_ = g;
}

}  // namespace twin
