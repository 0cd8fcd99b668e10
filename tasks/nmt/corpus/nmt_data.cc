#include "corpus/nmt_data.h"

#include <algorithm>

#include "base/check.h"
#include "data/text.h"
#include "base/json_reader.h"

namespace twin::nmt {

const ConfigTable<NmtDataConfig>& nmt_data_table() {
  return table_once<NmtDataConfig>([]<class C>(ConfigTable<C>& t) {
    t.text("dir", &C::dir, "folder of the prepared corpus (python3 data_prep/nmt.py)")
        .text("src", &C::src, "source language suffix: <dir>/<split>.<form>.<src>")
        .text("tgt", &C::tgt, "target language suffix")
        .choice("form", &C::form, kTextFormNames, "which text the model reads: lowercased Moses tokens or raw");
    add_split_rows<C>(t, [](C& c) -> SplitNames& { return c; }, "training split name");
    t.text_list("extra_tests", &C::extra_tests, "more test splits, translated and scored at the end")
        .text("bpe", &C::bpe, "joint subword model, relative to dir (or bpe_src + bpe_tgt)")
        .text("bpe_src", &C::bpe_src, "source subword model, relative to dir (with bpe_tgt)")
        .text("bpe_tgt", &C::bpe_tgt, "target subword model, relative to dir (with bpe_src)")
        .integer("max_len", &C::max_len, 1, 100000, "training filter: pieces per side, EOS excluded")
        .number("max_ratio", &C::max_ratio, 0.0, 1e6, "training filter: max(len)/min(len); 0 = off")
        .count("max_train", &C::max_train, 0, std::numeric_limits<long>::max(), "> 0: the first N kept pairs only")
        .count("batch_tokens", &C::batch_tokens, 1, std::numeric_limits<long>::max(),
               "padded tokens per batch: B x (longest side + 1)")
        .integer("max_sentences", &C::max_sentences, 1, std::numeric_limits<int>::max(), "sentences per batch at most")
        .integer("maxi_batch", &C::maxi_batch, 0, std::numeric_limits<int>::max(), "length-sorting window, in batches")
        .integer("eval_sentences", &C::eval_sentences, 1, std::numeric_limits<int>::max(), "sentences per decoding batch");
    t.rule([](const C& c) -> std::pair<std::string, std::string> {
      if (c.bpe_src.empty() == c.bpe_tgt.empty()) return {"", ""};
      return {c.bpe_src.empty() ? "bpe_tgt" : "bpe_src", "needs its partner: give both bpe_src and bpe_tgt, or neither"};
    });
    t.rule([](const C& c) -> std::pair<std::string, std::string> {
      if (c.max_ratio != 0 && c.max_ratio < 1) return {"max_ratio", "must be 0 (off) or >= 1"};
      return {"", ""};
    });
  });
}

NmtDataConfig parse_nmt_data(JsonReader& r) { return nmt_data_table().parse(r); }
nlohmann::json to_json(const NmtDataConfig& c) { return nmt_data_table().to_json(c); }

std::string split_path(const NmtDataConfig& c, const std::string& split, const std::string& lang,
                       std::optional<TextForm> form) {
  return c.dir + "/" + split + "." + std::string(name_of(kTextFormNames, form.value_or(c.form))) + "." + lang;
}

std::string FilterReport::str() const {
  std::string s = std::to_string(kept) + " of " + std::to_string(read) + " pairs kept";
  if (empty) {
    s += "; " + std::to_string(empty) + " with an empty side dropped (lines";
    for (long l : empty_lines) s += " " + std::to_string(l);
    if (empty > static_cast<long>(empty_lines.size())) s += " ...";
    s += ")";
  }
  if (too_long) s += "; " + std::to_string(too_long) + " longer than max_len dropped";
  if (bad_ratio) s += "; " + std::to_string(bad_ratio) + " outside max_ratio dropped";
  return s;
}

namespace {
bool blank(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](unsigned char ch) { return std::isspace(ch); });
}
}  // namespace

Parallel read_parallel(const std::string& src_path, const std::string& tgt_path, const Subword& src_sp,
                       const Subword& tgt_sp, const NmtDataConfig& c, bool training, FilterReport* report) {
  LineReader rs(src_path), rt(tgt_path);   // UTF-8 checked: SentencePiece would encode invalid bytes as unknown pieces
  Parallel p;
  FilterReport rep;
  std::string ls, lt;
  for (;;) {
    const bool has_s = rs.next(ls), has_t = rt.next(lt);
    if (!has_s || !has_t) {
      if (has_s != has_t) {
        // Count the rest so the message gives both totals.
        long ns = rs.line_no(), nt = rt.line_no();
        std::string tmp;
        while (rs.next(tmp)) ns = rs.line_no();
        while (rt.next(tmp)) nt = rt.line_no();
        TW_FAIL("misaligned parallel files: ", src_path, " has ", ns, " lines but ", tgt_path, " has ", nt,
                " (HINT: both sides must have one sentence per line, in the same order)");
      }
      break;
    }
    ++rep.read;
    if (training && c.max_train > 0 && rep.kept >= c.max_train) continue;
    if (training && (blank(ls) || blank(lt))) {
      ++rep.empty;
      if (rep.empty_lines.size() < 10) rep.empty_lines.push_back(rs.line_no());
      continue;
    }
    Ids s = src_sp.encode(ls), t = tgt_sp.encode(lt);
    if (training) {
      const auto ns = static_cast<double>(s.size()), nt = static_cast<double>(t.size());
      if (s.size() > static_cast<size_t>(c.max_len) || t.size() > static_cast<size_t>(c.max_len)) {
        ++rep.too_long;
        continue;
      }
      if (c.max_ratio > 0 && std::max(ns, nt) > c.max_ratio * std::min(ns, nt)) {
        ++rep.bad_ratio;
        continue;
      }
    }
    s.push_back(kEos);
    t.push_back(kEos);
    p.src.push_back(std::move(s));
    p.tgt.push_back(std::move(t));
    p.src_text.push_back(ls);
    p.tgt_text.push_back(lt);
    p.line.push_back(rs.line_no());
    ++rep.kept;
  }
  TW_CHECK(rep.read > 0, "parallel files ", src_path, " and ", tgt_path, " are empty");
  TW_CHECK(!training || rep.kept > 0, "no training pair of ", src_path, " / ", tgt_path,
           " survives the filters: ", rep.str(), " (HINT: raise data.max_len or data.max_ratio)");
  if (report) *report = rep;
  return p;
}

BatchingOptions nmt_batching(const NmtDataConfig& c) {
  return {.batch_size = c.max_sentences, .max_tokens = c.batch_tokens, .maxi_batch = c.maxi_batch};
}

std::vector<std::vector<int>> nmt_batches(const Parallel& data, const NmtDataConfig& c, Rng& rng, bool shuffle) {
  std::vector<int> lengths(data.src.size());
  for (size_t i = 0; i < lengths.size(); ++i)
    lengths[i] = static_cast<int>(std::max(data.src[i].size(), data.tgt[i].size()));
  BatchingOptions o = nmt_batching(c);
  o.shuffle = shuffle;
  return make_batches(lengths, o, rng);
}

}  // namespace twin::nmt
