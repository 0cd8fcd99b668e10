#include "ner_data.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "base/check.h"
#include "base/file_io.h"
#include "base/json_reader.h"
#include "data/text.h"

namespace twin::ner {

const ConfigTable<NerDataConfig>& ner_data_table() {
  return table_once<NerDataConfig>([]<class C>(ConfigTable<C>& t) {
    add_text_data_rows<C>(t, [](C& c) -> TextDataConfig& { return c.text; });
    t.text("extension", &C::extension, "file extension of the splits: <dir>/<split>.<extension>")
        .choice("scheme", &C::scheme, kTagSchemeNames, "the tags the CRF learns and predicts (files may use any scheme)")
        .integer("max_word_chars", &C::max_word_chars, 0, 1 << 16, "characters of a word fed to the character BiRNN; 0 = all")
        .number("singleton_unk", &C::singleton_unk, 0.0, 1.0,
                "training: a word seen once is fed as <unk> with this probability (Lample et al.)");
  });
}

NerDataConfig parse_ner_data(JsonReader& r) { return ner_data_table().parse(r); }
nlohmann::json to_json(const NerDataConfig& c) { return ner_data_table().to_json(c); }

std::vector<Sentence> read_conll(const std::string& path) {
  LineReader in(path);
  std::vector<Sentence> out;
  Sentence cur;
  std::size_t columns = 0;
  std::int64_t columns_line = 0;
  auto flush = [&] {
    if (!cur.tokens.empty()) out.push_back(std::move(cur));
    cur = Sentence{};
  };
  std::string line;
  while (in.next(line)) {
    const std::vector<std::string> f = split_whitespace(line);
    if (f.empty()) {   // blank or whitespace-only (WNUT-17's training file has lines holding only a TAB)
      flush();
      continue;
    }
    if (f[0] == "-DOCSTART-") {   // CoNLL-2003 document boundary
      flush();
      continue;
    }
    TW_CHECK(f.size() >= 2, in.where(), ": one column ('", f[0],
             "'); expected the token first and its tag last (e.g. 'Paris B-LOC')");
    if (columns == 0) {
      columns = f.size();
      columns_line = in.line_no();
    }
    TW_CHECK(f.size() == columns, in.where(), ": ", f.size(), " columns, but the file's first token line (",
             columns_line, ") has ", columns);
    split_tag(f.back(), in.where());
    if (cur.tokens.empty()) cur.line = static_cast<long>(in.line_no());
    cur.tokens.push_back(f.front());
    cur.tags.push_back(f.back());
  }
  flush();
  TW_CHECK(!out.empty(), path, ": no sentences (expected one 'token ... tag' line per token, blank lines between "
                               "sentences)");
  return out;
}

std::vector<Sentence> read_split(const NerDataConfig& c, const std::string& split) {
  const std::string p = c.text.dir + "/" + split + "." + c.extension;
  TW_CHECK(std::filesystem::exists(p), "NER data file ", p, " not found (HINT: python3 data_prep/ner.py writes ",
           c.text.dir, "/ from $RAW_DATA/wnut17, or from CoNLL-2003's eng.train/testa/testb with --conll2003 DIR; "
           "data.dir in the experiment says where)");
  return read_conll(p);
}

int NerVocab::tag_id(const std::string& tag) const {
  const auto it = std::find(tags.begin(), tags.end(), tag);
  return it == tags.end() ? -1 : static_cast<int>(it - tags.begin());
}

void NerVocab::save_kept(const std::string& dir) const {
  WordCharVocabs::save_kept(dir);
  std::string lines;
  for (const std::string& t : tags) lines += t + "\n";
  write_text_atomic(dir + "/" + kTagsFile, lines);
}

// tags.txt must hold the tag "O" first (build_vocab's order) and only tags split_tag accepts.
void NerVocab::load_kept(const std::string& dir) {
  WordCharVocabs::load_kept(dir);
  const std::string path = dir + "/" + kTagsFile;
  tags = read_lines(path);
  TW_CHECK(!tags.empty() && tags[0] == "O", path, ": expected the tag \"O\" on line 1 (the tag list a run writes)");
  for (size_t i = 0; i < tags.size(); ++i) split_tag(tags[i], path + ":" + std::to_string(i + 1));
}

namespace {
std::string word_key(const std::string& token, bool lowercase) {
  std::vector<std::string> one{token};
  if (lowercase) lowercase_ascii(one);
  return one[0];
}

std::vector<std::string> word_chars(const std::string& token, int max_chars) {
  std::vector<std::string> cs = utf8_chars(token);
  if (max_chars > 0 && static_cast<int>(cs.size()) > max_chars) cs.resize(static_cast<size_t>(max_chars));
  return cs;
}
}  // namespace

NerVocab build_vocab(const std::vector<Sentence>& train, const NerDataConfig& c) {
  TokenCounts wc, cc;
  std::set<std::string> types;
  for (const Sentence& s : train) {
    for (const std::string& t : s.tokens) {
      wc.add(word_key(t, c.text.lowercase));
      cc.add(word_chars(t, 0));
    }
    for (const std::string& tag : s.tags)
      if (tag != "O") types.insert(tag.substr(2));
  }
  NerVocab v;
  v.words = build_text_vocab(wc, c.text);
  v.singleton.assign(static_cast<size_t>(v.words.size()), false);
  for (const auto& [w, n] : wc.entries()) {
    const std::int32_t id = v.words.find(w);
    if (n == 1 && id >= 0) v.singleton[static_cast<size_t>(id)] = true;
  }
  v.chars = Vocab::from_counts(cc, WordCharVocabs::kOptions);
  const std::string prefixes = c.scheme == TagScheme::kBioes ? "BIES" : "BI";
  v.tags.push_back("O");
  for (const std::string& type : types)
    for (char p : prefixes) v.tags.push_back(std::string(1, p) + "-" + type);
  return v;
}

NerBatch make_batch(const std::vector<Sentence>& data, const std::vector<int>& index, const NerVocab& v,
                    const NerDataConfig& c, bool with_gold, Rng* unk_rng) {
  NerBatch b;
  std::vector<Ids> words;
  for (int i : index) {
    const Sentence& s = data[static_cast<size_t>(i)];
    Ids ids;
    for (const std::string& t : s.tokens) {
      std::int32_t id = v.words.id(word_key(t, c.text.lowercase));
      if (unk_rng && c.singleton_unk > 0 && v.singleton[static_cast<size_t>(id)] && unk_rng->bernoulli(c.singleton_unk))
        id = v.words.id(kUnkWord);
      ids.push_back(id);
    }
    words.push_back(std::move(ids));
    if (with_gold) {
      std::vector<int> gold;
      for (const std::string& tag : convert_tags(s.tags, c.scheme)) {
        const int id = v.tag_id(tag);
        TW_CHECK(id >= 0, "NER sentence at line ", s.line, ": tag '", tag, "' is not in the training tag set");
        gold.push_back(id);
      }
      b.gold.push_back(std::move(gold));
    }
  }
  b.words = pad_batch(words, kPadId);
  // The real words in time-major slot order, t*B + b.
  const Index T = b.words.steps(), B = b.words.size();
  std::vector<Ids> chars;
  b.slot_rows.assign(static_cast<size_t>(T * B), -1);
  for (Index t = 0; t < T; ++t)
    for (Index k = 0; k < B; ++k) {
      const Sentence& s = data[static_cast<size_t>(index[static_cast<size_t>(k)])];
      if (t >= static_cast<Index>(s.tokens.size())) continue;
      b.slot_rows[static_cast<size_t>(t * B + k)] = static_cast<std::int32_t>(chars.size());
      chars.push_back(v.chars.encode(word_chars(s.tokens[static_cast<size_t>(t)], c.max_word_chars)));
    }
  const auto n = static_cast<std::int32_t>(chars.size());
  for (auto& r : b.slot_rows)
    if (r < 0) r = n;
  b.chars = pad_batch(chars, kPadId);
  return b;
}

}  // namespace twin::ner
