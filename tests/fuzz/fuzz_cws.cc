// Fuzz target: the prepared SIGHAN/CWS data the cws task reads (tasks/cws/cws_data.h read_split, bmes.h, the
// OOV word list of core/eval/segmentation.h) and the strict UTF-8 validation under them (core/data/text.h).
//
// Input: `<train.seg>#--#<train.bmes>[#--#<train_words.txt>]` (fuzz_util.h kSep). After a successful read the
// sentences go through the vocabulary and batching the training loop uses, and two invariants are checked
// (a silently wrong corpus would break them): tags_to_words(chars, tags) gives back the gold words, and every
// batch holds each sentence once with its characters' ids in range.
#include <cstddef>
#include <cstdint>

#include "base/rng.h"
#include "bmes.h"
#include "cws_data.h"
#include "eval/segmentation.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace twin;
  const auto parts = fuzz::split_parts(data, size, 3);
  fuzz::put_file("train.seg", parts[0]);
  fuzz::put_file("train.bmes", parts.size() > 1 ? parts[1] : std::string_view());
  cws::CwsDataConfig c;
  c.dir = fuzz::scratch_dir();
  c.bigrams = size % 2 == 1;
  if (parts.size() > 2) {
    const std::string words = fuzz::put_file("train_words.txt", parts[2]);
    fuzz::expect_error_or_ok([&] { (void)read_word_list(words); });
  }
  fuzz::expect_error_or_ok([&] {
    const std::vector<cws::Sentence> sents = cws::read_split(c, "train");
    for (const cws::Sentence& s : sents)
      if (s.chars.size() != s.tags.size() || cws::tags_to_words(s.chars, s.tags) != s.words) std::abort();
    const cws::CwsVocab v = cws::build_vocab(sents, c);
    Rng rng(7);
    std::vector<int> seen(sents.size(), 0);
    for (const auto& idx : batches_by_length(sents, cws::sentence_length,
        {.batch_size = 3, .maxi_batch = 2, .shuffle = true}, rng)) {
      const cws::CwsBatch b = cws::make_batch(sents, idx, v, c.bigrams);
      for (int i : idx) ++seen[static_cast<std::size_t>(i)];
      for (Index k = 0; k < b.chars.ids.size(); ++k)
        if (b.chars.ids.data()[k] < 0 || b.chars.ids.data()[k] >= v.chars.size()) std::abort();
    }
    for (int n : seen)
      if (n != 1) std::abort();
  });
  return 0;
}
