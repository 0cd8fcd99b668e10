#include "nmt_synthetic.h"

#include <sentencepiece_trainer.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "base/check.h"
#include "base/rng.h"

namespace twin::nmt {

namespace {

void train_spm(const std::vector<std::string>& inputs, const std::string& model_prefix, int vocab_size,
               const std::string& type) {
  std::string files;
  for (const auto& f : inputs) files += (files.empty() ? "" : ",") + f;
  const std::string args = "--input=" + files + " --model_prefix=" + model_prefix + " --vocab_size=" +
                           std::to_string(vocab_size) + " --model_type=" + type +
                           " --character_coverage=1.0 --pad_id=0 --bos_id=1 --eos_id=2 --unk_id=3"
                           " --normalization_rule_name=identity --input_sentence_size=0"
                           " --shuffle_input_sentence=false --num_threads=1 --minloglevel=2"
                           " --hard_vocab_limit=false";
  const auto st = sentencepiece::SentencePieceTrainer::Train(args);
  TW_CHECK(st.ok(), "learning a subword model from ", files, " failed: ", st.ToString());
}

}  // namespace

void learn_subword_model(const std::vector<std::string>& inputs, const std::string& model_prefix, int vocab_size) {
  train_spm(inputs, model_prefix, vocab_size, "bpe");
}

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
  train_spm({dir + "/train.tok.src"}, dir + "/spm/src", vocab_size, "word");
  train_spm({dir + "/train.tok.tgt"}, dir + "/spm/tgt", vocab_size, "word");
}

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
