#include "snli_data.h"

#include <charconv>
#include <cmath>
#include <filesystem>

#include "base/check.h"
#include "data/text.h"

namespace twin::snli {

namespace {
constexpr const char* kLabelNames[kNumLabels] = {"entailment", "neutral", "contradiction"};

// Fields of `line` separated by `sep` (empty fields kept).
std::vector<std::string_view> split_on(std::string_view line, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t p = line.find(sep, start);
    out.push_back(line.substr(start, p == std::string_view::npos ? std::string_view::npos : p - start));
    if (p == std::string_view::npos) return out;
    start = p + 1;
  }
}

bool is_number(std::string_view s) {
  float v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

std::vector<std::string> tokens_of(std::string_view field, bool lowercase) {
  std::vector<std::string> t = split_whitespace(field);
  if (lowercase)
    for (auto& w : t)
      for (char& ch : w)
        if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  return t;
}
}  // namespace

int label_id(std::string_view name, const std::string& where) {
  for (int i = 0; i < kNumLabels; ++i)
    if (name == kLabelNames[i]) return i;
  TW_FAIL(where, ": unknown label '", name, "' (expected entailment, neutral or contradiction; data_prep/snli.py "
          "drops the '-' pairs)");
}

const char* label_name(int id) {
  TW_CHECK(id >= 0 && id < kNumLabels, "SNLI label id ", id, " out of range [0, ", kNumLabels, ")");
  return kLabelNames[id];
}

SnliDataConfig parse_snli_data(JsonReader& r) {
  SnliDataConfig c;
  c.dir = r.require_string("dir");
  c.protocol = r.require_string("protocol");
  c.train = r.get_string("train", c.train);
  c.dev = r.get_string("dev", c.dev);
  c.test = r.get_string("test", c.test);
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

nlohmann::json to_json(const SnliDataConfig& c) {
  return {{"dir", c.dir},
          {"protocol", c.protocol},
          {"train", c.train},
          {"dev", c.dev},
          {"test", c.test},
          {"lowercase", c.lowercase},
          {"min_count", c.min_count},
          {"max_vocab", c.max_vocab},
          {"embeddings", c.embeddings},
          {"batch_size", c.batch_size},
          {"maxi_batch", c.maxi_batch},
          {"eval_batch_size", c.eval_batch_size}};
}

std::vector<Pair> read_split(const SnliDataConfig& c, const std::string& split) {
  const std::string path = c.dir + "/" + split + ".tsv";
  TW_CHECK(std::filesystem::exists(path), "SNLI data file ", path, " not found (HINT: python3 data_prep/snli.py "
           "[--protocol inhouse|full|sick] writes data/snli/<protocol>/ from $RAW_DATA/{snli,sick}; data.dir in the "
           "experiment says where)");
  LineReader in(path);
  std::vector<Pair> out;
  std::string line;
  while (in.next(line)) {
    const std::string where = in.where();
    const std::int64_t bad = utf8_error_offset(line);
    TW_CHECK(bad < 0, where, ": invalid UTF-8 at byte ", bad, " of the line");
    const auto f = split_on(line, '\t');
    TW_CHECK(f.size() == 3, where, ": ", f.size(), " tab-separated field(s), expected 3 (label, premise, hypothesis)");
    Pair p;
    p.label = label_id(f[0], where);
    p.premise = tokens_of(f[1], c.lowercase);
    p.hypothesis = tokens_of(f[2], c.lowercase);
    TW_CHECK(!p.premise.empty(), where, ": empty premise");
    TW_CHECK(!p.hypothesis.empty(), where, ": empty hypothesis");
    out.push_back(std::move(p));
  }
  TW_CHECK(!out.empty(), path, ": no pairs (an empty split; rerun python3 data_prep/snli.py)");
  return out;
}

Vocab build_vocab(const std::vector<Pair>& train, const SnliDataConfig& c) {
  TokenCounts counts;
  for (const Pair& p : train) {
    counts.add(p.premise);
    counts.add(p.hypothesis);
  }
  return Vocab::from_counts(counts, VocabOptions{{kPadWord, kUnkWord}, kUnkWord, false, c.min_count, c.max_vocab});
}

long load_glove(const std::string& path, const Vocab& vocab, Mat& table) {
  TW_CHECK(std::filesystem::exists(path), "embeddings file ", path, " not found (data.embeddings: a GloVe text "
           "file such as glove.840B.300d.txt, or \"\" for random initialisation)");
  TW_CHECK(table.rows() == vocab.size() && table.cols() > 0, "load_glove: the table is ", shape_str(table),
           ", expected [", vocab.size(), ", d > 0] (one row per vocabulary word)");
  const Index d = table.cols();
  std::vector<char> seen(static_cast<size_t>(vocab.size()), 0);
  long found = 0;
  LineReader in(path);
  std::string line;
  while (in.next(line)) {
    std::string_view sv(line);
    while (!sv.empty() && sv.back() == ' ') sv.remove_suffix(1);  // some copies end lines with a space
    if (sv.empty()) continue;
    const size_t sp = sv.find(' ');
    TW_CHECK(sp != std::string_view::npos, in.where(), ": expected `word v1 ... v", d, "`, found no spaces");
    const std::int32_t id = vocab.find(sv.substr(0, sp));
    if (id < 0 || seen[static_cast<size_t>(id)]) continue;  // other words (and the empty word): skipped unparsed
    const auto f = split_on(sv.substr(sp + 1), ' ');
    const auto n = static_cast<Index>(f.size());
    // A word with spaces inside (". . ." in glove.840B) starts like one of ours but goes on with a non-number.
    if (n > d && !is_number(f[0])) continue;
    TW_CHECK(n == d, in.where(), ": ", n, " numbers after '", sv.substr(0, sp), "', expected ", d,
             " (the table's dimension)");
    for (Index k = 0; k < d; ++k) {
      const auto s = f[static_cast<size_t>(k)];
      float v = 0;
      const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
      TW_CHECK(r.ec == std::errc() && r.ptr == s.data() + s.size() && std::isfinite(v), in.where(), ": field ",
               k + 2, " '", s, "' is not a (finite) number");
      table(id, k) = static_cast<Real>(v);
    }
    seen[static_cast<size_t>(id)] = 1;
    ++found;
  }
  return found;
}

SnliBatch make_batch(const std::vector<Pair>& data, const std::vector<int>& index, const Vocab& v) {
  std::vector<Ids> prem, hyp;
  SnliBatch b;
  prem.reserve(index.size());
  hyp.reserve(index.size());
  for (int i : index) {
    TW_CHECK(i >= 0 && static_cast<size_t>(i) < data.size(), "make_batch: pair index ", i, " out of range [0, ",
             data.size(), ")");
    const Pair& p = data[static_cast<size_t>(i)];
    prem.push_back(v.encode(p.premise));
    hyp.push_back(v.encode(p.hypothesis));
    b.labels.push_back(p.label);
  }
  b.premise = pad_batch(prem, kPadId);
  b.hypothesis = pad_batch(hyp, kPadId);
  return b;
}

std::vector<std::vector<int>> snli_batches(const std::vector<Pair>& data, int batch_size, int maxi_batch,
                                           bool shuffle, Rng& rng) {
  std::vector<int> lengths;
  lengths.reserve(data.size());
  for (const Pair& p : data) lengths.push_back(static_cast<int>(p.premise.size() + p.hypothesis.size()));
  BatchingOptions o;
  o.batch_size = batch_size;
  o.maxi_batch = maxi_batch;
  o.shuffle = shuffle;
  return make_batches(lengths, o, rng);
}

}  // namespace twin::snli
