#include "snli_synthetic.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "base/rng.h"
#include "snli_data.h"
#include "train/run_dir.h"

namespace twin::snli {

void write_synthetic_snli(const std::string& dir, std::uint64_t seed, int n_train, int n_dev, int n_test) {
  std::filesystem::create_directories(dir);
  Rng rng(seed);
  constexpr int kWords = 24;
  auto word = [](int i) { return "w" + std::to_string(i); };
  auto pair_line = [&] {
    std::vector<int> premise;
    const int s = 4 + static_cast<int>(rng.uniform_int(0, 4));
    while (static_cast<int>(premise.size()) < s) {
      const int w = static_cast<int>(rng.uniform_int(0, kWords - 1));
      if (std::find(premise.begin(), premise.end(), w) == premise.end()) premise.push_back(w);
    }
    const int label = static_cast<int>(rng.uniform_int(0, kNumLabels - 1));
    std::vector<std::string> hyp;
    const int t = 1 + static_cast<int>(rng.uniform_int(0, 2));
    if (label == 2) hyp.push_back("not");
    for (int k = 0; k < t; ++k) {
      if (label == 1) {   // neutral: a word the premise does not have
        int w;
        do w = static_cast<int>(rng.uniform_int(0, kWords - 1));
        while (std::find(premise.begin(), premise.end(), w) != premise.end());
        hyp.push_back(word(w));
      } else {
        hyp.push_back(word(premise[static_cast<size_t>(rng.uniform_int(0, s - 1))]));
      }
    }
    std::string line = std::string(label_name(label)) + "\t";
    for (size_t k = 0; k < premise.size(); ++k) line += (k ? " " : "") + word(premise[k]);
    line += "\t";
    for (size_t k = 0; k < hyp.size(); ++k) line += (k ? " " : "") + hyp[k];
    return line + "\n";
  };
  for (const auto& [name, n] : {std::pair<std::string, int>{"train", n_train}, {"dev", n_dev}, {"test", n_test}}) {
    std::string text;
    for (int i = 0; i < n; ++i) text += pair_line();
    write_text_atomic(dir + "/" + name + ".tsv", text);
  }
}

}  // namespace twin::snli
