#include "cws_synthetic.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <vector>

#include "base/rng.h"
#include "bmes.h"
#include "train/run_dir.h"

namespace twin::cws {

namespace {
std::string code_point(std::uint32_t cp) {   // a 3-byte UTF-8 character (U+0800..U+FFFF)
  std::string s;
  s += static_cast<char>(0xE0 | (cp >> 12));
  s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
  s += static_cast<char>(0x80 | (cp & 0x3F));
  return s;
}

constexpr int kLexicon = 150, kAlphabet = 120;
}  // namespace

void write_synthetic_cws(const std::string& dir, std::uint64_t seed, int n_train, int n_dev, int n_test) {
  std::filesystem::create_directories(dir);
  Rng rng(seed);
  std::vector<std::string> lexicon;
  std::set<std::string> seen;
  while (static_cast<int>(lexicon.size()) < kLexicon) {
    const int len = 1 + static_cast<int>(rng.uniform_int(0, 3));
    std::string w;
    for (int k = 0; k < len; ++k) w += code_point(0x4E00 + static_cast<std::uint32_t>(rng.uniform_int(0, kAlphabet - 1)));
    if (seen.insert(w).second) lexicon.push_back(w);
  }
  // Zipf-like: word r is drawn with weight 1 / (r + 1).
  std::vector<double> cum;
  double total = 0;
  for (int r = 0; r < kLexicon; ++r) cum.push_back(total += 1.0 / (r + 1));
  auto draw = [&] {
    const double u = static_cast<double>(rng.uniform(0, 1)) * total;
    return static_cast<size_t>(std::lower_bound(cum.begin(), cum.end(), u) - cum.begin());
  };
  std::set<std::string> train_words;
  auto write_split = [&](const std::string& name, int n, bool is_train) {
    std::string seg, tags;
    for (int i = 0; i < n; ++i) {
      const int words = 3 + static_cast<int>(rng.uniform_int(0, 9));
      std::vector<std::string> sent;
      for (int k = 0; k < words; ++k) sent.push_back(lexicon[std::min(draw(), lexicon.size() - 1)]);
      for (size_t k = 0; k < sent.size(); ++k) seg += (k ? " " : "") + sent[k];
      seg += "\n";
      for (int t : words_to_tags(sent, name)) tags += kTagLetters[t];
      tags += "\n";
      if (is_train) train_words.insert(sent.begin(), sent.end());
    }
    write_text_atomic(dir + "/" + name + ".seg", seg);
    write_text_atomic(dir + "/" + name + ".bmes", tags);
  };
  write_split("train", n_train, true);
  write_split("dev", n_dev, false);
  write_split("test", n_test, false);
  std::string wl;
  for (const auto& w : train_words) wl += w + "\n";
  write_text_atomic(dir + "/train_words.txt", wl);
}

}  // namespace twin::cws
