// Fuzz target: the SST / `<label> <tokens>` lines reader (tasks/classify/classify_data.h read_examples) and
// what training does with its result: count_labels, the vocabulary, batching.
//
// Input: the lines of train.txt. num_labels (0 = counted, or 2 / 5 as SST-2 / SST-5 experiments set it) and
// lowercasing come from the input size, so each input is read one way. Invariants after a successful read:
// every label is in range of the label count, and each example lands in exactly one batch with ids in range.
#include <cstddef>
#include <cstdint>

#include "base/rng.h"
#include "classify_data.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace twin;
  const std::string path =
      fuzz::put_file("train.txt", std::string_view(reinterpret_cast<const char*>(data), size));
  classify::ClassifyDataConfig c;
  c.dir = fuzz::scratch_dir();
  c.num_labels = std::vector<int>{0, 2, 5}[size % 3];
  c.lowercase = size % 2 == 1;
  fuzz::expect_error_or_ok([&] {
    const std::vector<classify::Example> ex = classify::read_examples(path, c.num_labels, c.lowercase);
    const int n_labels = classify::count_labels(ex, c, path);
    for (const auto& e : ex)
      if (e.label < 0 || e.label >= n_labels || e.tokens.empty()) std::abort();
    const Vocab v = classify::build_vocab(ex, c);
    Rng rng(5);
    std::vector<int> seen(ex.size(), 0);
    for (const auto& idx : batches_by_length(ex, classify::example_length,
        {.batch_size = 4, .maxi_batch = 2, .shuffle = true}, rng)) {
      const classify::ClassifyBatch b = classify::make_batch(ex, idx, v);
      for (int i : idx) ++seen[static_cast<std::size_t>(i)];
      for (Index k = 0; k < b.text.ids.size(); ++k)
        if (b.text.ids.data()[k] < 0 || b.text.ids.data()[k] >= v.size()) std::abort();
    }
    for (int n : seen)
      if (n != 1) std::abort();
  });
  return 0;
}
