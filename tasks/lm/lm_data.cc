#include "lm_data.h"

#include <algorithm>
#include <filesystem>

#include "base/check.h"
#include "data/text.h"
#include "base/json_reader.h"

namespace twin::lm {

const ConfigTable<LmDataConfig>& lm_data_table() {
  return table_once<LmDataConfig>([]<class C>(ConfigTable<C>& t) {
    t.text("dir", &C::dir, "folder of the prepared corpus (python3 data_prep/ptb.py writes data/ptb)")
        .text("train", &C::train, "training text, one sentence per line, relative to dir")
        .text("valid", &C::valid, "validation text, relative to dir")
        .text("test", &C::test, "test text, relative to dir")
        .text("vocab", &C::vocab, "vocabulary file (one word per line), relative to dir; \"\" = built from train")
        .integer("bptt", &C::bptt, 1, 10000, "truncated back-propagation window (tokens)")
        .integer("eval_batch_size", &C::eval_batch_size, 1, 100000, "streams when computing dev/test perplexity")
        .choice("loss", &C::loss, kLmLossNames,
                "window loss: summed over time and averaged over the batch (Zaremba, the ATR TF LM) or per token "
                "(pytorch/examples)")
        .choice("oov", &C::oov, kLmOovNames,
                "a word not in the vocabulary: an error naming file, line and word (prepared corpora such as PTB "
                "map rare words to <unk> themselves), or mapped to <unk>, counted and printed");
  });
}

LmDataConfig parse_lm_data(JsonReader& r) { return lm_data_table().parse(r); }
nlohmann::json to_json(const LmDataConfig& c) { return lm_data_table().to_json(c); }

namespace {
std::string split_path(const LmDataConfig& c, const std::string& file) {
  const std::string p = (std::filesystem::path(c.dir) / file).string();
  TW_CHECK(std::filesystem::exists(p), "LM data file ", p, " does not exist (HINT: python3 data_prep/ptb.py ",
           "prepares data/ptb from $RAW_DATA/ptb; data.dir in the experiment says where)");
  return p;
}
}  // namespace

Ids read_stream(const std::string& path, const Vocab& vocab, LmOov oov, long* unknown) {
  Ids out;
  LineReader in(path);
  std::string line;
  const std::int32_t eos = vocab.find("<eos>");
  TW_CHECK(eos >= 0, "the LM vocabulary has no <eos> word");
  long unk_count = 0;
  while (in.next(line)) {
    for (const auto& w : split_whitespace(line)) {
      std::int32_t id = vocab.find(w);
      if (id < 0) {
        TW_CHECK(oov == LmOov::kUnk, in.where(), ": word '", w, "' is not in the vocabulary (",
                 "a prepared corpus maps its rare words to <unk> itself, so this is another corpus's file or ",
                 "vocabulary; data.oov = \"unk\" maps such words to <unk> and counts them)");
        TW_CHECK(vocab.unk_id() >= 0, in.where(), ": word '", w, "' is not in the vocabulary and it has no <unk>");
        id = vocab.unk_id();
        ++unk_count;
      }
      out.push_back(id);
    }
    out.push_back(eos);
  }
  TW_CHECK(out.size() > static_cast<size_t>(std::count(out.begin(), out.end(), eos)), path,
           ": no text (an LM split needs at least one word)");
  if (unknown) *unknown = unk_count;
  return out;
}

LmCorpus load_corpus(const LmDataConfig& c) {
  LmCorpus corpus;
  if (!c.vocab.empty()) {
    corpus.vocab = Vocab::load(split_path(c, c.vocab), kLmVocabOptions);
    TW_CHECK(corpus.vocab.find("<eos>") >= 0, split_path(c, c.vocab), ": no <eos> word (an LM vocabulary lists ",
             "every word of the text, <eos> included: it ends each line)");
  } else {
    TokenCounts counts;
    LineReader in(split_path(c, c.train));
    std::string line;
    while (in.next(line)) {
      counts.add(split_whitespace(line));
      counts.add("<eos>");
    }
    TW_CHECK(counts.distinct() > 1, split_path(c, c.train), ": no text (an LM split needs at least one word)");
    corpus.vocab = Vocab::from_counts(counts, kLmVocabOptions);
  }
  for (auto [file, ids] : {std::pair{&c.train, &corpus.train}, {&c.valid, &corpus.valid}, {&c.test, &corpus.test}}) {
    const std::string path = split_path(c, *file);
    long unknown = 0;
    *ids = read_stream(path, corpus.vocab, c.oov, &unknown);
    if (unknown > 0)
      corpus.notes.push_back(path + ": " + std::to_string(unknown) + " of " + std::to_string(ids->size()) +
                             " tokens were not in the vocabulary and were mapped to <unk> (data.oov = \"unk\")");
  }
  return corpus;
}

IdMat batchify(const Ids& stream, Index batch) {
  TW_CHECK(batch > 0, "batchify: batch size ", batch);
  const Index len = static_cast<Index>(stream.size()) / batch;
  TW_CHECK(len >= 2, "batchify: ", stream.size(), " tokens are too few for ", batch, " columns (need 2 per column)");
  IdMat data(len, batch);
  for (Index b = 0; b < batch; ++b)
    for (Index t = 0; t < len; ++t) data(t, b) = stream[static_cast<size_t>(b * len + t)];
  return data;
}

Index num_windows(const IdMat& data, int bptt) { return (data.rows() - 1 + bptt - 1) / bptt; }

void window(const IdMat& data, Index w, int bptt, IdMat& input, IdMat& target) {
  const Index start = w * bptt;
  TW_CHECK(start < data.rows() - 1, "window ", w, " past the end of the data");
  const Index T = std::min<Index>(bptt, data.rows() - 1 - start);
  input = data.middleRows(start, T);
  target = data.middleRows(start + 1, T);
}

}  // namespace twin::lm
