// Seeded random numbers. Every source of randomness takes an Rng explicitly (no globals),
// and its state can be saved into a checkpoint and restored for exact resume.
#pragma once
#include <cstdint>
#include <random>
#include <string>

#include "base/real.h"

namespace twin {

class Rng {
 public:
  explicit Rng(std::uint64_t seed = 1) : gen_(seed) {}
  void seed(std::uint64_t s) { gen_.seed(s); }
  Real uniform(Real lo, Real hi);
  Real normal(Real mean, Real stddev);
  bool bernoulli(double p);
  std::uint64_t next_u64() { return gen_(); }
  std::int64_t uniform_int(std::int64_t lo, std::int64_t hi);  // inclusive both ends
  void fill_uniform(Mat& m, Real lo, Real hi);
  void fill_normal(Mat& m, Real mean, Real stddev);
  template <typename It>
  void shuffle(It first, It last) {
    // Fisher-Yates with our own integer draws: std::shuffle's algorithm is library-specific,
    // which would make runs differ between standard libraries.
    for (auto n = last - first; n > 1; --n) std::swap(first[n - 1], first[uniform_int(0, n - 1)]);
  }
  std::string save() const;              // text form of the engine state
  void restore(const std::string& state);  // throws twin::Error on a malformed state
  std::mt19937_64& engine() { return gen_; }

 private:
  std::mt19937_64 gen_;
};

}  // namespace twin
