#include "nmt_data.h"

#include <algorithm>

#include "base/check.h"
#include "data/text.h"
#include "base/json_reader.h"

namespace twin::nmt {

NmtDataConfig parse_nmt_data(JsonReader& r) {
  NmtDataConfig c;
  c.dir = r.get_string("dir", c.dir);
  c.src = r.get_string("src", c.src);
  c.tgt = r.get_string("tgt", c.tgt);
  c.form = r.get_choice("form", c.form, {"tok", "raw"});
  c.train = r.get_string("train", c.train);
  c.dev = r.get_string("dev", c.dev);
  c.test = r.get_string("test", c.test);
  const nlohmann::json extra = r.raw("extra_tests");
  if (!extra.is_null()) {
    if (!extra.is_array()) r.fail("extra_tests", "must be a list of split names, got " + describe_json(extra));
    for (const auto& e : extra) {
      if (!e.is_string()) r.fail("extra_tests", "must hold split names (strings), got " + describe_json(e));
      c.extra_tests.push_back(e.get<std::string>());
    }
  }
  c.bpe = r.get_string("bpe", c.bpe);
  c.bpe_src = r.get_string("bpe_src", c.bpe_src);
  c.bpe_tgt = r.get_string("bpe_tgt", c.bpe_tgt);
  if (c.bpe_src.empty() != c.bpe_tgt.empty())
    r.fail(c.bpe_src.empty() ? "bpe_tgt" : "bpe_src", "needs its partner: give both bpe_src and bpe_tgt, or neither");
  c.max_len = r.get_int("max_len", c.max_len, 1, 100000);
  c.max_ratio = r.get_double("max_ratio", c.max_ratio, 0.0, 1e6);
  if (c.max_ratio != 0 && c.max_ratio < 1) r.fail("max_ratio", "must be 0 (off) or >= 1");
  c.max_train = r.get_long("max_train", c.max_train, 0);
  c.batch_tokens = r.get_long("batch_tokens", c.batch_tokens, 1);
  c.max_sentences = r.get_int("max_sentences", c.max_sentences, 1);
  c.maxi_batch = r.get_int("maxi_batch", c.maxi_batch, 0);
  c.eval_sentences = r.get_int("eval_sentences", c.eval_sentences, 1);
  r.finish();
  return c;
}

nlohmann::json to_json(const NmtDataConfig& c) {
  return {{"dir", c.dir},           {"src", c.src},
          {"tgt", c.tgt},           {"form", c.form},
          {"train", c.train},       {"dev", c.dev},
          {"test", c.test},         {"extra_tests", c.extra_tests},
          {"bpe", c.bpe},           {"bpe_src", c.bpe_src},
          {"bpe_tgt", c.bpe_tgt},   {"max_len", c.max_len},
          {"max_ratio", c.max_ratio}, {"max_train", c.max_train},
          {"batch_tokens", c.batch_tokens}, {"max_sentences", c.max_sentences},
          {"maxi_batch", c.maxi_batch}, {"eval_sentences", c.eval_sentences}};
}

std::string split_path(const NmtDataConfig& c, const std::string& split, const std::string& lang,
                       const std::string& form) {
  return c.dir + "/" + split + "." + (form.empty() ? c.form : form) + "." + lang;
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
  LineReader rs(src_path), rt(tgt_path);
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

std::vector<std::vector<int>> nmt_batches(const Parallel& data, const NmtDataConfig& c, Rng& rng, bool shuffle) {
  std::vector<int> lengths(data.src.size());
  for (size_t i = 0; i < lengths.size(); ++i)
    lengths[i] = static_cast<int>(std::max(data.src[i].size(), data.tgt[i].size()));
  BatchingOptions o;
  o.batch_size = c.max_sentences;
  o.max_tokens = c.batch_tokens;
  o.maxi_batch = c.maxi_batch;
  o.shuffle = shuffle;
  return make_batches(lengths, o, rng);
}

}  // namespace twin::nmt
