#include "nmt_shaped_corpus.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

#include "base/check.h"
#include "base/rng.h"
#include "corpus/subword.h"

namespace twin::speed {

void write_shaped_parallel(const std::string& dir, std::uint64_t seed, int train_pairs, int test_pairs,
                           int vocab_size, int mean_len) {
  namespace fs = std::filesystem;
  TW_CHECK(vocab_size >= 100 && mean_len >= 2, "shaped corpus: vocab_size >= 100 and mean_len >= 2 expected");
  fs::create_directories(dir + "/spm");
  Rng rng(seed);
  const int types = vocab_size + 4000;
  std::vector<double> cdf(static_cast<size_t>(types));   // Zipf, exponent 1
  double sum = 0;
  for (int i = 0; i < types; ++i) cdf[static_cast<size_t>(i)] = sum += 1.0 / (i + 1);
  auto word = [&]() -> int {
    if (rng.uniform_int(0, 1)) return static_cast<int>(rng.uniform_int(0, types - 1));
    const double u = static_cast<double>(rng.uniform(0, 1)) * sum;
    return static_cast<int>(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
  };
  const int lo = std::max(1, mean_len * 6 / 10), hi = mean_len * 14 / 10;
  auto write_split = [&](const std::string& split, int n) {
    std::ofstream s(dir + "/" + split + ".tok.src"), t(dir + "/" + split + ".tok.tgt");
    TW_CHECK(s && t, "cannot write the shaped corpus under ", dir);
    for (int i = 0; i < n; ++i) {
      for (std::ofstream* f : {&s, &t}) {
        const char side = f == &s ? 's' : 't';
        const long len = rng.uniform_int(lo, hi);
        for (long k = 0; k < len; ++k) *f << (k ? " " : "") << side << word();
        *f << "\n";
      }
    }
  };
  write_split("train", train_pairs);
  write_split("val", test_pairs);
  write_split("test", test_pairs);
  nmt::learn_subword_model({dir + "/train.tok.src"}, dir + "/spm/src", vocab_size, "word");
  nmt::learn_subword_model({dir + "/train.tok.tgt"}, dir + "/spm/tgt", vocab_size, "word");
}

}  // namespace twin::speed
