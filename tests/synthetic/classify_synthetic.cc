#include "classify_synthetic.h"

#include <filesystem>
#include <vector>

#include "base/rng.h"
#include "train/run_dir.h"

namespace twin::classify {

void write_synthetic_sentiment(const std::string& dir, std::uint64_t seed, int n_train, int n_dev, int n_test) {
  std::filesystem::create_directories(dir);
  Rng rng(seed);
  constexpr int kFillers = 30;
  const std::vector<std::string> positive = {"good", "great", "fine"}, negative = {"bad", "awful", "dull"};
  auto line = [&] {
    const int n_fill = 4 + static_cast<int>(rng.uniform_int(0, 8));
    const int n_sent = 1 + 2 * static_cast<int>(rng.uniform_int(0, 2));   // 1, 3 or 5: no ties
    std::vector<std::string> words;
    for (int k = 0; k < n_fill; ++k) words.push_back("w" + std::to_string(rng.uniform_int(0, kFillers - 1)));
    int score = 0;
    for (int k = 0; k < n_sent; ++k) {
      const bool pos = rng.uniform_int(0, 1) == 1;
      score += pos ? 1 : -1;
      const auto& pool = pos ? positive : negative;
      const auto at = static_cast<long>(rng.uniform_int(0, static_cast<std::int64_t>(words.size())));
      words.insert(words.begin() + at, pool[static_cast<size_t>(rng.uniform_int(0, 2))]);
    }
    std::string s = score > 0 ? "1" : "0";
    for (const auto& w : words) s += " " + w;
    return s + "\n";
  };
  for (const auto& [name, n] : {std::pair<std::string, int>{"train", n_train}, {"dev", n_dev}, {"test", n_test}}) {
    std::string text;
    for (int i = 0; i < n; ++i) text += line();
    write_text_atomic(dir + "/" + name + ".txt", text);
  }
}

}  // namespace twin::classify
