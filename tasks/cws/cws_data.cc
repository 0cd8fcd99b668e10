#include "cws_data.h"

#include <filesystem>

#include "base/check.h"
#include "bmes.h"
#include "data/text.h"

namespace twin::cws {

const ConfigTable<CwsDataConfig>& cws_data_table() {
  return table_once<CwsDataConfig>([]<class C>(ConfigTable<C>& t) {
    t.required_text("dir", &C::dir, "folder of the prepared splits (<split>.seg and <split>.bmes) and the words list")
        .required_text("protocol", &C::protocol, "a plain description for tables, e.g. \"in-house (b): ...\"");
    add_split_rows<C>(t, [](C& c) -> SplitNames& { return c; }, "training split name");
    t.text("words", &C::words, "training word list, relative to dir (the OOV reference)")
        .integer("min_count", &C::min_count, 1, 1 << 30, "training characters seen fewer times map to <unk>")
        .flag("bigrams", &C::bigrams, "also feed character bigrams (c_i c_{i+1})");
    add_batching_rows<C>(t, [](C& c) -> BatchingConfig& { return c; }, "sentences", "decoding");
  });
}

CwsDataConfig parse_cws_data(JsonReader& r) { return cws_data_table().parse(r); }
nlohmann::json to_json(const CwsDataConfig& c) { return cws_data_table().to_json(c); }

namespace {
std::string need_file(const CwsDataConfig& c, const std::string& name) {
  const std::string p = c.dir + "/" + name;
  TW_CHECK(std::filesystem::exists(p), "CWS data file ", p, " not found (HINT: python3 data_prep/cws.py [--protocol standard] writes ",
           c.dir, "/ from the SIGHAN-2005 files under $RAW_DATA/sighan2005; data.dir in the experiment says where)");
  return p;
}
}  // namespace

std::vector<Sentence> read_split(const CwsDataConfig& c, const std::string& split) {
  const std::string seg_path = need_file(c, split + ".seg"), tag_path = need_file(c, split + ".bmes");
  const std::vector<std::string> seg = read_lines(seg_path), tags = read_lines(tag_path);
  TW_CHECK(seg.size() == tags.size(), tag_path, ": ", tags.size(), " lines, but ", seg_path, " has ", seg.size(),
           " (a tag file must have one line per sentence)");
  std::vector<Sentence> out(seg.size());
  for (size_t i = 0; i < seg.size(); ++i) {
    const std::string where = seg_path + ":" + std::to_string(i + 1);
    Sentence& s = out[i];
    s.words = split_whitespace(seg[i]);   // read_lines checked the line's UTF-8
    TW_CHECK(!s.words.empty(), where, ": empty sentence (data_prep/cws.py drops empty lines; was the file edited?)");
    for (const auto& w : s.words) {
      auto cs = utf8_chars(w);
      s.chars.insert(s.chars.end(), cs.begin(), cs.end());
    }
    const std::string& t = tags[i];   // read_lines dropped a CR
    const std::string twhere = tag_path + ":" + std::to_string(i + 1);
    TW_CHECK(t.size() == s.chars.size(), twhere, ": ", t.size(), " tags for the ", s.chars.size(),
             " characters of ", where);
    for (char ch : t) s.tags.push_back(tag_from_letter(ch, twhere));
    TW_CHECK(s.tags == words_to_tags(s.words, where), twhere, ": the tags do not describe the words of ", where);
  }
  return out;
}

std::vector<std::string> char_bigrams(const std::vector<std::string>& chars) {
  std::vector<std::string> out;
  out.reserve(chars.size());
  for (size_t i = 0; i < chars.size(); ++i) out.push_back(chars[i] + (i + 1 < chars.size() ? chars[i + 1] : kEosWord));
  return out;
}

CwsVocab build_vocab(const std::vector<Sentence>& train, const CwsDataConfig& c) {
  TokenCounts cc, bc;
  for (const Sentence& s : train) {
    cc.add(s.chars);
    if (c.bigrams) bc.add(char_bigrams(s.chars));
  }
  const VocabOptions o = pad_unk_options(c.min_count);
  CwsVocab v;
  v.chars = Vocab::from_counts(cc, o);
  if (c.bigrams) v.bigrams = Vocab::from_counts(bc, o);
  return v;
}

CwsBatch make_batch(const std::vector<Sentence>& data, const std::vector<int>& index, const CwsVocab& v,
                    bool bigrams) {
  std::vector<Ids> seqs, bseqs;
  CwsBatch b;
  for (int i : index) {
    const Sentence& s = data[static_cast<size_t>(i)];
    seqs.push_back(v.chars.encode(s.chars));
    if (bigrams) bseqs.push_back(v.bigrams.encode(char_bigrams(s.chars)));
    b.gold.push_back(s.tags);
  }
  b.chars = pad_batch(seqs, kPadId);
  if (bigrams) b.bigram_flat = pad_batch(bseqs, kPadId).flat();
  return b;
}

}  // namespace twin::cws
