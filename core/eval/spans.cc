// conlleval's chunk rules (conlleval.pl, CoNLL-2000..2003; the S and E cases as in its widely used Python port
// for BIOES). On IOB1 and BIO tags, which have no E or S, these are exactly the Perl script's rules.
#include "eval/spans.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "base/check.h"

namespace twin {

TagScheme parse_tag_scheme(const std::string& name, const std::string& what) {
  std::string s = name;
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (s == "iob1") return TagScheme::kIob1;
  if (s == "bio" || s == "iob2") return TagScheme::kBio;
  if (s == "bioes" || s == "iobes") return TagScheme::kBioes;
  TW_FAIL(what, ": unknown tag scheme '", name, "'; expected iob1, bio (iob2) or bioes (iobes)");
}

const char* tag_scheme_name(TagScheme s) { return name_of(kTagSchemeNames, s).data(); }

TagParts split_tag(const std::string& tag, const std::string& where) {
  if (tag == "O") return {};
  const bool ok = tag.size() >= 3 && tag[1] == '-' && std::string("BIES").find(tag[0]) != std::string::npos;
  TW_CHECK(ok, where, ": tag '", tag, "' is neither O nor B-, I-, E- or S- followed by an entity type");
  return {tag[0], tag.substr(2)};
}

namespace {

// conlleval's endOfChunk(prevTag, tag, prevType, type): does the chunk open at the previous token end before this one?
bool chunk_ends(const TagParts& prev, const TagParts& cur) {
  const char p = prev.prefix, t = cur.prefix;
  if (p == 'E' || p == 'S') return true;
  if ((p == 'B' || p == 'I') && (t == 'B' || t == 'S' || t == 'O')) return true;
  return p != 'O' && prev.type != cur.type;
}

// conlleval's startOfChunk(prevTag, tag, prevType, type): does a chunk start at this token?
bool chunk_starts(const TagParts& prev, const TagParts& cur) {
  const char p = prev.prefix, t = cur.prefix;
  if (t == 'B' || t == 'S') return true;
  if ((t == 'E' || t == 'I') && (p == 'E' || p == 'S' || p == 'O')) return true;
  return t != 'O' && prev.type != cur.type;
}

std::vector<TagParts> split_all(const std::vector<std::string>& tags) {
  std::vector<TagParts> out;
  out.reserve(tags.size());
  for (size_t i = 0; i < tags.size(); ++i) out.push_back(split_tag(tags[i], "tag " + std::to_string(i)));
  return out;
}

}  // namespace

std::vector<Span> tag_spans(const std::vector<std::string>& tags) {
  const std::vector<TagParts> parts = split_all(tags);
  std::vector<Span> spans;
  TagParts prev;   // "O" before the sentence
  int open = -1;   // start of the chunk being read, -1 when none
  for (int i = 0; i <= static_cast<int>(parts.size()); ++i) {
    const TagParts cur = i < static_cast<int>(parts.size()) ? parts[static_cast<size_t>(i)] : TagParts{};   // "O" after
    if (open >= 0 && chunk_ends(prev, cur)) {
      spans.push_back({open, i, prev.type});
      open = -1;
    }
    if (chunk_starts(prev, cur)) open = i;
    prev = cur;
  }
  return spans;
}

std::vector<std::string> spans_to_tags(const std::vector<Span>& spans, int n, TagScheme scheme) {
  std::vector<std::string> tags(static_cast<size_t>(n), "O");
  std::vector<Span> sorted = spans;
  std::sort(sorted.begin(), sorted.end());
  int last_end = -1;
  std::string last_type;
  for (const Span& s : sorted) {
    TW_CHECK(s.begin >= 0 && s.begin < s.end && s.end <= n && !s.type.empty(), "spans_to_tags: span [", s.begin,
             ", ", s.end, ") '", s.type, "' is empty or outside ", n, " tokens");
    TW_CHECK(s.begin >= last_end, "spans_to_tags: span [", s.begin, ", ", s.end, ") overlaps the one before");
    for (int i = s.begin; i < s.end; ++i) tags[static_cast<size_t>(i)] = "I-" + s.type;
    const bool single = s.end - s.begin == 1;
    switch (scheme) {
      case TagScheme::kIob1:
        if (s.begin == last_end && s.type == last_type) tags[static_cast<size_t>(s.begin)] = "B-" + s.type;
        break;
      case TagScheme::kBio: tags[static_cast<size_t>(s.begin)] = "B-" + s.type; break;
      case TagScheme::kBioes:
        if (single) {
          tags[static_cast<size_t>(s.begin)] = "S-" + s.type;
        } else {
          tags[static_cast<size_t>(s.begin)] = "B-" + s.type;
          tags[static_cast<size_t>(s.end - 1)] = "E-" + s.type;
        }
        break;
    }
    last_end = s.end;
    last_type = s.type;
  }
  return tags;
}

std::vector<std::string> convert_tags(const std::vector<std::string>& tags, TagScheme scheme) {
  return spans_to_tags(tag_spans(tags), static_cast<int>(tags.size()), scheme);
}

void SpanCounts::add(const std::vector<std::string>& gold, const std::vector<std::string>& pred) {
  TW_CHECK(gold.size() == pred.size(), "span scores: ", pred.size(), " predicted tags for ", gold.size(),
           " gold tags");
  const std::vector<Span> g = tag_spans(gold), p = tag_spans(pred);
  const std::set<Span> gs(g.begin(), g.end());
  for (const Span& s : g) {
    ++all.gold;
    ++per_type[s.type].gold;
  }
  for (const Span& s : p) {
    ++all.predicted;
    Counts& c = per_type[s.type];
    ++c.predicted;
    if (gs.count(s)) {
      ++all.correct;
      ++c.correct;
    }
  }
  tokens += static_cast<long>(gold.size());
  for (size_t i = 0; i < gold.size(); ++i) correct_tags += gold[i] == pred[i];
}

namespace {
nlohmann::json prf(const SpanCounts::Counts& c) {
  const double p = c.predicted ? static_cast<double>(c.correct) / static_cast<double>(c.predicted) : 0.0;
  const double r = c.gold ? static_cast<double>(c.correct) / static_cast<double>(c.gold) : 0.0;
  return {{"precision", p}, {"recall", r}, {"f1", p + r > 0 ? 2 * p * r / (p + r) : 0.0}};
}
}  // namespace

nlohmann::json SpanCounts::to_json() const {
  nlohmann::json j = prf(all);
  j["gold_entities"] = all.gold;
  j["predicted_entities"] = all.predicted;
  j["correct_entities"] = all.correct;
  j["tokens"] = tokens;
  j["token_accuracy"] = tokens ? static_cast<double>(correct_tags) / static_cast<double>(tokens) : 0.0;
  nlohmann::json types = nlohmann::json::object();
  for (const auto& [type, c] : per_type) {
    nlohmann::json t = prf(c);
    t["gold"] = c.gold;
    t["predicted"] = c.predicted;
    t["correct"] = c.correct;
    types[type] = t;
  }
  j["per_type"] = types;
  return j;
}

}  // namespace twin
