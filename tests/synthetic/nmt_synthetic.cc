#include "nmt_synthetic.h"

#include <filesystem>
#include <fstream>
#include <vector>

#include "base/check.h"
#include "base/rng.h"
#include "corpus/subword.h"

namespace twin::nmt {

void write_synthetic_parallel(const std::string& dir, std::uint64_t seed, int train_pairs, int dev_pairs,
                              int test_pairs, int vocab_size) {
  namespace fs = std::filesystem;
  fs::create_directories(dir + "/bpe");
  Rng rng(seed);
  const int kWords = 12;
  auto write_split = [&](const std::string& split, int n) {
    std::ofstream s(dir + "/" + split + ".tok.src"), t(dir + "/" + split + ".tok.tgt");
    TW_CHECK(s && t, "cannot write the synthetic corpus under ", dir);
    for (int i = 0; i < n; ++i) {
      const int len = static_cast<int>(rng.uniform_int(3, 8));
      std::vector<int> w(static_cast<size_t>(len));
      for (int& x : w) x = static_cast<int>(rng.uniform_int(0, kWords - 1));
      for (int k = 0; k < len; ++k)
        s << (k ? " " : "") << static_cast<char>('a' + w[static_cast<size_t>(k)] % 6) << w[static_cast<size_t>(k)] / 6;
      for (int k = len - 1; k >= 0; --k) {
        const int x = (w[static_cast<size_t>(k)] * 5 + 3) % kWords;   // the dictionary: a bijection
        t << (k == len - 1 ? "" : " ") << static_cast<char>('u' + x % 6) << x / 6;
      }
      s << "\n";
      t << "\n";
    }
  };
  write_split("train", train_pairs);
  write_split("val", dev_pairs);
  write_split("test", test_pairs);
  learn_subword_model({dir + "/train.tok.src", dir + "/train.tok.tgt"}, dir + "/bpe/joint", vocab_size);
}

}  // namespace twin::nmt
