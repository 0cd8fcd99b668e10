#include "classify_data.h"

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "base/check.h"
#include "data/text.h"

namespace twin::classify {

const ConfigTable<ClassifyDataConfig>& classify_data_table() {
  return table_once<ClassifyDataConfig>([]<class C>(ConfigTable<C>& t) {
    add_text_data_rows<C>(t, [](C& c) -> TextDataConfig& { return c; });
    t.integer("num_labels", &C::num_labels, 0, 1 << 20, "classes C; 0 = counted from the training data");
    add_length_policy_rows<C>(t, [](C& c) -> LengthPolicy& { return c.length; });
    t.rule([](const C& c) -> std::pair<std::string, std::string> {
      if (c.num_labels == 1) return {"num_labels", "must be 0 (counted from the training data) or at least 2"};
      return {"", ""};
    });
  });
}

ClassifyDataConfig parse_classify_data(JsonReader& r) { return classify_data_table().parse(r); }
nlohmann::json to_json(const ClassifyDataConfig& c) { return classify_data_table().to_json(c); }

std::string split_path(const ClassifyDataConfig& c, const std::string& split) { return c.dir + "/" + split + ".txt"; }

std::vector<Example> read_examples(const std::string& path, int num_labels, bool lowercase,
                                   const LengthPolicy& length) {
  TW_CHECK(std::filesystem::exists(path), "classification data file ", path, " not found (HINT: python3 "
           "data_prep/sst.py writes data/sst/{sst2,sst5}/{train,dev,test}.txt from $RAW_DATA/sst; any corpus with "
           "one `<label> <tokens>` line per example works; data.dir in the experiment says where)");
  std::vector<Example> out = read_records<Example>(path, [&](const std::string& line, const std::string& where) {
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
    if (lowercase) lowercase_ascii(e.tokens);
    e.dropped = truncate_tokens(e.tokens, length);
    return e;
  });
  TW_CHECK(!out.empty(), path, ": no examples (an empty file)");
  return out;
}

nlohmann::json truncation_counts(const std::vector<Example>& data) {
  long cut = 0, kept = 0, dropped = 0;
  for (const Example& e : data) {
    cut += e.dropped > 0;
    kept += static_cast<long>(e.tokens.size());
    dropped += e.dropped;
  }
  return {{"examples", data.size()}, {"truncated", cut}, {"tokens_kept", kept}, {"tokens_dropped", dropped}};
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
  return build_text_vocab(counts, c);
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

}  // namespace twin::classify
