// Fuzz target: the parallel text reader and the subword (SentencePiece BPE) model loader of the NMT task
// (tasks/nmt/corpus/nmt_data.h read_parallel, nmt_batches; tasks/nmt/corpus/subword.h Subword).
//
// Input: `<src text>#--#<tgt text>[#--#<model bytes>]` (fuzz_util.h kSep). With a third part, those bytes are
// loaded as the subword model of both sides (a model file cut short, from another tool, or with other special
// ids must be an error); otherwise the committed 516-byte BPE model data/bpe.model is used (learned by
// learn_subword_model on the synthetic NMT corpus). Both sides are read twice: as training data (filtered)
// and as evaluation data (every line kept). Invariants: both sides have one sequence per kept pair, each
// ending in EOS with ids inside the model's vocabulary, and every pair lands in exactly one batch.
#include <cstddef>
#include <cstdint>
#include <optional>

#include "base/rng.h"
#include "corpus/nmt_data.h"
#include "corpus/subword.h"
#include "fuzz_util.h"

namespace {

const twin::nmt::Subword& fixed_model() {
  static const twin::nmt::Subword sp(TW_FUZZ_DATA_DIR "/bpe.model");
  return sp;
}

void check(const twin::nmt::Parallel& p, const twin::nmt::Subword& sp, const twin::nmt::NmtDataConfig& c) {
  using namespace twin;
  if (p.src.size() != p.tgt.size() || p.src.size() != p.line.size()) std::abort();
  for (const auto* side : {&p.src, &p.tgt})
    for (const Ids& s : *side) {
      if (s.empty() || s.back() != nmt::kEos) std::abort();
      for (auto id : s)
        if (id < 0 || id >= sp.size()) std::abort();
    }
  Rng rng(11);
  std::vector<int> seen(p.src.size(), 0);
  for (const auto& b : nmt::nmt_batches(p, c, rng))
    for (int i : b) ++seen[static_cast<std::size_t>(i)];
  for (int n : seen)
    if (n != 1) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace twin;
  const auto parts = fuzz::split_parts(data, size, 3);
  const std::string src = fuzz::put_file("train.tok.src", parts[0]);
  const std::string tgt = fuzz::put_file("train.tok.tgt", parts.size() > 1 ? parts[1] : std::string_view());
  std::optional<nmt::Subword> own;
  if (parts.size() > 2) {
    const std::string model = fuzz::put_file("bpe.model", parts[2]);
    if (!fuzz::expect_error_or_ok([&] { own.emplace(model); })) return 0;
    fuzz::expect_error_or_ok([&] {
      const Ids ids = own->encode(std::string(parts[0].substr(0, 200)));
      (void)own->decode(ids);
      for (int i = 0; i < own->size() && i < 64; ++i) (void)own->piece(i);
    });
  }
  const nmt::Subword& sp = own ? *own : fixed_model();
  nmt::NmtDataConfig c;
  c.max_len = 1 + static_cast<int>(size % 40);
  c.max_ratio = size % 3 == 0 ? 0.0 : 1.5;
  c.max_train = static_cast<long>(size % 7);
  c.batch_tokens = 16;
  c.max_sentences = 4;
  c.maxi_batch = 2;
  for (bool training : {true, false})
    fuzz::expect_error_or_ok([&] {
      nmt::FilterReport rep;
      const nmt::Parallel p = nmt::read_parallel(src, tgt, sp, sp, c, training, &rep);
      (void)rep.str();
      check(p, sp, c);
    });
  return 0;
}
