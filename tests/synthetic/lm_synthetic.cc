#include "lm_synthetic.h"

#include <filesystem>
#include <vector>

#include "base/rng.h"
#include "train/run_dir.h"

namespace twin::lm {

namespace {
const std::vector<std::string> kDet = {"the", "a", "every", "some"};
const std::vector<std::string> kAdj = {"small", "red", "old", "quick", "quiet"};
const std::vector<std::string> kNoun = {"cat", "dog", "bird", "child", "teacher", "river"};
const std::vector<std::string> kVerb = {"sees", "likes", "follows", "finds"};
const std::vector<std::string> kPrep = {"near", "behind", "under"};

const std::string& pick(const std::vector<std::string>& v, Rng& r) {
  return v[static_cast<size_t>(r.uniform_int(0, static_cast<std::int64_t>(v.size()) - 1))];
}

std::string noun_phrase(Rng& r) {
  std::string s = pick(kDet, r) + " ";
  if (r.bernoulli(0.5)) s += pick(kAdj, r) + " ";
  return s + pick(kNoun, r);
}

std::string sentence(Rng& r) {
  std::string s = noun_phrase(r) + " " + pick(kVerb, r) + " " + noun_phrase(r);
  if (r.bernoulli(0.3)) s += " " + pick(kPrep, r) + " " + noun_phrase(r);
  return s;
}
}  // namespace

void write_synthetic_corpus(const std::string& dir, std::uint64_t seed, int train_lines, int valid_lines,
                            int test_lines) {
  std::filesystem::create_directories(dir);
  Rng r(seed);
  auto write = [&](const std::string& name, int n) {
    std::string text;
    for (int i = 0; i < n; ++i) text += sentence(r) + "\n";
    write_text_atomic((std::filesystem::path(dir) / name).string(), text);
  };
  write("train.txt", train_lines);
  write("valid.txt", valid_lines);
  write("test.txt", test_lines);
}

}  // namespace twin::lm
