// Fuzz target: PTB-style text and vocabulary files (core/data/text.h LineReader / read_lines, core/data/vocab.h
// Vocab::load, tasks/lm/lm_data.h load_corpus / read_stream / batchify / window).
//
// Input: `<text>[#--#<vocabulary>]`. The text is the train, valid and test split at once (train.txt); with a
// second part, that is the vocabulary file (vocab.txt, data.vocab), otherwise the vocabulary is counted from
// the text as the LM does by default. Gzip input is read transparently, so a seed starting with 1f 8b reaches
// zlib. After a successful load the id stream is batchified and windowed as training does, and every id is
// checked against the vocabulary: an out-of-range id would be a silently wrong corpus.
#include <cstddef>
#include <cstdint>

#include "data/text.h"
#include "data/vocab.h"
#include "fuzz_util.h"
#include "lm_data.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace twin;
  const auto parts = fuzz::split_parts(data, size, 2);
  const std::string text = fuzz::put_file("train.txt", parts[0]);
  lm::LmDataConfig c;
  c.dir = fuzz::scratch_dir();
  c.train = c.valid = c.test = "train.txt";
  if (parts.size() > 1) {
    fuzz::put_file("vocab.txt", parts[1]);
    c.vocab = "vocab.txt";
    // The vocabulary loader with the default specials too (NMT/CWS-style files must start with them).
    fuzz::expect_error_or_ok([&] {
      const Vocab v = Vocab::load(fuzz::scratch_dir() + "/vocab.txt");
      for (std::int32_t i = 0; i < v.size(); ++i)
        if (v.find(v.word(i)) != i) std::abort();   // the word <-> id maps disagree
    });
  }
  fuzz::expect_error_or_ok([&] {
    for (const std::string& line : read_lines(text)) {
      (void)split_whitespace(line);
      if (is_utf8_valid(line)) (void)utf8_chars(line);
    }
  });
  fuzz::expect_error_or_ok([&] {
    const lm::LmCorpus corpus = lm::load_corpus(c);
    for (const Ids* s : {&corpus.train, &corpus.valid, &corpus.test})
      for (auto id : *s)
        if (id < 0 || id >= corpus.vocab.size()) std::abort();
    const IdMat batched = lm::batchify(corpus.train, 1 + static_cast<Index>(size % 3));
    IdMat in, target;
    const Index n = lm::num_windows(batched, 3);
    for (Index w = 0; w < n; ++w) lm::window(batched, w, 3, in, target);
  });
  return 0;
}
