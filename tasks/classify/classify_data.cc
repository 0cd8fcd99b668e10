#include "classify_data.h"

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "base/check.h"
#include "data/text.h"

namespace twin::classify {

ClassifyDataConfig parse_classify_data(JsonReader& r) {
  ClassifyDataConfig c;
  c.dir = r.require_string("dir");
  c.protocol = r.require_string("protocol");
  c.train = r.get_string("train", c.train);
  c.dev = r.get_string("dev", c.dev);
  c.test = r.get_string("test", c.test);
  c.num_labels = r.get_int("num_labels", c.num_labels, 0, 1 << 20);
  if (c.num_labels == 1) r.fail("num_labels", "must be 0 (counted from the training data) or at least 2");
  c.lowercase = r.get_bool("lowercase", c.lowercase);
  c.min_count = r.get_int("min_count", c.min_count, 1, 1 << 30);
  c.max_vocab = r.get_int("max_vocab", c.max_vocab, 0, 1 << 30);
  if (c.max_vocab == 1 || c.max_vocab == 2) r.fail("max_vocab", "must be 0 (no limit) or more than the 2 specials");
  c.embeddings = r.get_string("embeddings", c.embeddings);
  c.batch_size = r.get_int("batch_size", c.batch_size, 1, 1 << 20);
  c.maxi_batch = r.get_int("maxi_batch", c.maxi_batch, 0, 1 << 20);
  c.eval_batch_size = r.get_int("eval_batch_size", c.eval_batch_size, 1, 1 << 20);
  r.finish();
  return c;
}

nlohmann::json to_json(const ClassifyDataConfig& c) {
  return {{"dir", c.dir},
          {"protocol", c.protocol},
          {"train", c.train},
          {"dev", c.dev},
          {"test", c.test},
          {"num_labels", c.num_labels},
          {"lowercase", c.lowercase},
          {"min_count", c.min_count},
          {"max_vocab", c.max_vocab},
          {"embeddings", c.embeddings},
          {"batch_size", c.batch_size},
          {"maxi_batch", c.maxi_batch},
          {"eval_batch_size", c.eval_batch_size}};
}

std::string split_path(const ClassifyDataConfig& c, const std::string& split) { return c.dir + "/" + split + ".txt"; }

std::vector<Example> read_examples(const std::string& path, int num_labels, bool lowercase) {
  TW_CHECK(std::filesystem::exists(path), "classification data file ", path, " not found (HINT: python3 "
           "data_prep/sst.py writes data/sst/{sst2,sst5}/{train,dev,test}.txt from $RAW_DATA/sst; any corpus with "
           "one `<label> <tokens>` line per example works; data.dir in the experiment says where)");
  LineReader in(path);
  std::vector<Example> out;
  std::string line;
  while (in.next(line)) {
    const std::string where = in.where();
    const std::int64_t bad = utf8_error_offset(line);
    TW_CHECK(bad < 0, where, ": invalid UTF-8 at byte ", bad, " of the line");
    std::vector<std::string> f = split_whitespace(line);
    TW_CHECK(!f.empty(), where, ": empty line: missing label (expected `<label> <tokens>`)");
    const std::string& lab = f[0];
    int label = -1;
    const auto r = std::from_chars(lab.data(), lab.data() + lab.size(), label);
    TW_CHECK(r.ec == std::errc() && r.ptr == lab.data() + lab.size() && label >= 0 && lab[0] != '+' &&
                 lab[0] != '-',
             where, ": label '", lab, "' is not a non-negative integer (expected `<label> <tokens>`, the label "
             "first: missing label?)");
    TW_CHECK(num_labels <= 0 || label < num_labels, where, ": unknown label ", label, " (labels are 0..",
             num_labels - 1, ")");
    TW_CHECK(f.size() > 1, where, ": empty text after the label ", label);
    Example e;
    e.label = label;
    e.tokens.assign(std::make_move_iterator(f.begin() + 1), std::make_move_iterator(f.end()));
    if (lowercase)
      for (auto& w : e.tokens)
        for (char& ch : w)
          if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
    out.push_back(std::move(e));
  }
  TW_CHECK(!out.empty(), path, ": no examples (an empty file)");
  return out;
}

int count_labels(const std::vector<Example>& train, const ClassifyDataConfig& c, const std::string& train_path) {
  int top = -1;
  for (const Example& e : train) top = std::max(top, e.label);
  if (c.num_labels > 0) {
    TW_CHECK(top < c.num_labels, train_path, ": label ", top, " but data.num_labels = ", c.num_labels);
    return c.num_labels;
  }
  TW_CHECK(top >= 1, train_path, ": only label ", top, " occurs: a classifier needs at least 2 labels (HINT: set "
           "data.num_labels)");
  // Every label 0..top must occur, so top < train.size(): checked before counting, because a stray huge label
  // ("955555551 text") made label_counts allocate top + 1 counters, 7.6 GB (found by tests/fuzz/fuzz_classify).
  if (static_cast<size_t>(top) >= train.size()) {
    std::vector<int> labels;
    for (const Example& e : train) labels.push_back(e.label);
    std::sort(labels.begin(), labels.end());
    labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
    int missing = 0;
    while (static_cast<size_t>(missing) < labels.size() && labels[static_cast<size_t>(missing)] == missing) ++missing;
    TW_FAIL(train_path, ": label ", missing, " never occurs although label ", top, " does: labels must be 0..C-1 ",
            "(HINT: set data.num_labels when a label is absent on purpose)");
  }
  const int n = top + 1;
  const std::vector<long> counts = label_counts(train, n);
  for (int l = 0; l < n; ++l)
    TW_CHECK(counts[static_cast<size_t>(l)] > 0, train_path, ": label ", l, " never occurs although label ", top,
             " does: labels must be 0..C-1 (HINT: set data.num_labels when a label is absent on purpose)");
  return n;
}

std::vector<long> label_counts(const std::vector<Example>& data, int num_labels) {
  std::vector<long> n(static_cast<size_t>(std::max(num_labels, 0)), 0);
  for (const Example& e : data)
    if (e.label >= 0 && e.label < num_labels) ++n[static_cast<size_t>(e.label)];
  return n;
}

Vocab build_vocab(const std::vector<Example>& train, const ClassifyDataConfig& c) {
  TokenCounts counts;
  for (const Example& e : train) counts.add(e.tokens);
  return Vocab::from_counts(counts, VocabOptions{{kPadWord, kUnkWord}, kUnkWord, false, c.min_count, c.max_vocab});
}

ClassifyBatch make_batch(const std::vector<Example>& data, const std::vector<int>& index, const Vocab& v) {
  std::vector<Ids> seqs;
  seqs.reserve(index.size());
  ClassifyBatch b;
  for (int i : index) {
    TW_CHECK(i >= 0 && static_cast<size_t>(i) < data.size(), "make_batch: example index ", i, " out of range [0, ",
             data.size(), ")");
    const Example& e = data[static_cast<size_t>(i)];
    seqs.push_back(v.encode(e.tokens));
    b.labels.push_back(e.label);
  }
  b.text = pad_batch(seqs, kPadId);
  return b;
}

std::vector<std::vector<int>> classify_batches(const std::vector<Example>& data, int batch_size, int maxi_batch,
                                               bool shuffle, Rng& rng) {
  std::vector<int> lengths;
  lengths.reserve(data.size());
  for (const Example& e : data) lengths.push_back(static_cast<int>(e.tokens.size()));
  BatchingOptions o;
  o.batch_size = batch_size;
  o.maxi_batch = maxi_batch;
  o.shuffle = shuffle;
  return make_batches(lengths, o, rng);
}

}  // namespace twin::classify
