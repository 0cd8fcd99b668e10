// Fuzz target: the SNLI TSV reader and the GloVe vector loader (tasks/snli/snli_data.h read_split, and
// load_text_embeddings of nn/text_embeddings.h, which both text tasks load pretrained vectors with).
//
// Input: `<train.tsv>[#--#<glove.txt>]` (fuzz_util.h kSep). The pairs go through the vocabulary and batching
// the training loop uses (each pair in exactly one batch, ids in range); the GloVe part is loaded into a
// [vocab, d] table, d = 1..4 from the input size, over the vocabulary of the pairs (or a fixed one when the
// TSV part is rejected, so the vector parser is fuzzed either way). Every row it reports set must be finite:
// a NaN embedding would poison training silently.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "base/rng.h"
#include "fuzz_util.h"
#include "nn/embedding.h"
#include "nn/text_embeddings.h"
#include "snli_data.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace twin;
  const auto parts = fuzz::split_parts(data, size, 2);
  fuzz::put_file("train.tsv", parts[0]);
  snli::SnliDataConfig c;
  c.dir = fuzz::scratch_dir();
  c.lowercase = size % 2 == 1;
  c.max_vocab = size % 5 == 0 ? 4 : 0;
  Vocab vocab{pad_unk_options()};
  for (const char* w : {"the", "a", "cat", ".", "man"}) vocab.add(w);
  vocab.freeze();
  fuzz::expect_error_or_ok([&] {
    const std::vector<snli::Pair> pairs = snli::read_split(c, "train");
    Vocab v = snli::build_vocab(pairs, c);
    Rng rng(3);
    std::vector<int> seen(pairs.size(), 0);
    for (const auto& idx : batches_by_length(pairs, snli::pair_length,
        {.batch_size = 4, .maxi_batch = 2, .shuffle = true}, rng)) {
      const snli::SnliBatch b = snli::make_batch(pairs, idx, v);
      for (int i : idx) ++seen[static_cast<std::size_t>(i)];
      for (const SeqBatch* s : {&b.premise, &b.hypothesis})
        for (Index k = 0; k < s->ids.size(); ++k)
          if (s->ids.data()[k] < 0 || s->ids.data()[k] >= v.size()) std::abort();
      for (auto l : b.labels)
        if (l < 0 || l >= snli::kNumLabels) std::abort();
    }
    for (int n : seen)
      if (n != 1) std::abort();
    vocab = std::move(v);
  });
  if (parts.size() < 2) return 0;
  const std::string glove = fuzz::put_file("glove.txt", parts[1]);
  const Index d = 1 + static_cast<Index>(size % 4);
  ParamStore store;
  Embedding emb(store, "emb", vocab.size(), d, init::constant(0));
  c.embeddings = glove;
  fuzz::expect_error_or_ok([&] {
    const long found = load_text_embeddings(c, vocab, emb);
    if (found < 0 || found > vocab.size() || !emb.table().value.allFinite()) std::abort();
  });
  return 0;
}
