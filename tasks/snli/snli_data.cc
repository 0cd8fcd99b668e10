#include "snli_data.h"

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

std::vector<std::string> tokens_of(std::string_view field, bool lowercase) {
  std::vector<std::string> t = split_whitespace(field);
  if (lowercase) lowercase_ascii(t);
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

const ConfigTable<SnliDataConfig>& snli_data_table() {
  return table_once<SnliDataConfig>([]<class C>(ConfigTable<C>& t) {
    add_text_data_rows<C>(t, [](C& c) -> TextDataConfig& { return c; });
  });
}

SnliDataConfig parse_snli_data(JsonReader& r) { return snli_data_table().parse(r); }
nlohmann::json to_json(const SnliDataConfig& c) { return snli_data_table().to_json(c); }

std::vector<Pair> read_split(const SnliDataConfig& c, const std::string& split) {
  const std::string path = c.dir + "/" + split + ".tsv";
  TW_CHECK(std::filesystem::exists(path), "SNLI data file ", path, " not found (HINT: python3 data_prep/snli.py "
           "[--protocol inhouse|full|sick] writes data/snli/<protocol>/ from $RAW_DATA/{snli,sick}; data.dir in the "
           "experiment says where)");
  std::vector<Pair> out = read_records<Pair>(path, [&](const std::string& line, const std::string& where) {
    const auto f = split_on(line, '\t');
    TW_CHECK(f.size() == 3, where, ": ", f.size(), " tab-separated field(s), expected 3 (label, premise, hypothesis)");
    Pair p;
    p.label = label_id(f[0], where);
    p.premise = tokens_of(f[1], c.lowercase);
    p.hypothesis = tokens_of(f[2], c.lowercase);
    TW_CHECK(!p.premise.empty(), where, ": empty premise");
    TW_CHECK(!p.hypothesis.empty(), where, ": empty hypothesis");
    return p;
  });
  TW_CHECK(!out.empty(), path, ": no pairs (an empty split; rerun python3 data_prep/snli.py)");
  return out;
}

Vocab build_vocab(const std::vector<Pair>& train, const SnliDataConfig& c) {
  TokenCounts counts;
  for (const Pair& p : train) {
    counts.add(p.premise);
    counts.add(p.hypothesis);
  }
  return build_text_vocab(counts, c);
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

}  // namespace twin::snli
