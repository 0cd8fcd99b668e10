// Entity spans from tag sequences, tag-scheme conversion, and entity-level precision / recall / F1 exactly as
// the CoNLL shared tasks' `conlleval` script counts them (Tjong Kim Sang & De Meulder 2003). Used by NER
// (tasks/ner) for its metric and for reading IOB1 / IOB2 (BIO) / BIOES files into its training scheme.
//
// A tag is "O" or "<P>-<type>" with P one of B, I, E, S and a non-empty type ("B-PER", "I-creative-work").
// Chunks follow conlleval's startOfChunk / endOfChunk rules, whatever the scheme:
//   a chunk ends before a tag when the previous tag was E or S; or was B or I and this tag is B, S or O;
//     or when the previous tag was not O and its type differs from this tag's type;
//   a chunk starts at B or S; at E or I after E, S or O; and at any non-O tag whose type differs from the
//     previous tag's.
// So an I- tag that follows O (IOB1's way to start an entity, or an ill-formed BIO output) starts an entity,
// and a model's output never has to be well formed to be scored. An entity is correct when its type and both
// boundaries match a gold entity. Scores are over all sentences together (micro), overall and per type.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/names.h"

namespace twin {

enum class TagScheme { kIob1, kBio, kBioes };
inline constexpr NameTable<TagScheme, 3> kTagSchemeNames{
    {{TagScheme::kIob1, "iob1"}, {TagScheme::kBio, "bio"}, {TagScheme::kBioes, "bioes"}}};

// "iob1" | "bio" (also "iob2") | "bioes" (also "iobes"), case-insensitive; anything else is an Error naming what.
TagScheme parse_tag_scheme(const std::string& name, const std::string& what);
const char* tag_scheme_name(TagScheme s);

struct TagParts {
  char prefix = 'O';   // 'O', 'B', 'I', 'E' or 'S'
  std::string type;    // empty for O
};

// Splits and checks one tag; a tag that is neither "O" nor "<B|I|E|S>-<type>" (e.g. "I-", "X-PER", "PER") is
// an Error naming `where` (file:line) and the tag.
TagParts split_tag(const std::string& tag, const std::string& where);

// [begin, end) over token positions, with the entity type.
struct Span {
  int begin = 0;
  int end = 0;
  std::string type;
  bool operator==(const Span& o) const { return begin == o.begin && end == o.end && type == o.type; }
  bool operator<(const Span& o) const {
    return begin != o.begin ? begin < o.begin : end != o.end ? end < o.end : type < o.type;
  }
};

// The entities of one sentence's tags by the conlleval rules above (tags must pass split_tag).
std::vector<Span> tag_spans(const std::vector<std::string>& tags);

// Tags of `n` tokens holding `spans` (non-overlapping, in [0, n)) in `scheme`. IOB1 writes B- only where an
// entity directly follows one of the same type; BIO writes B- at every start; BIOES adds E- and S-.
std::vector<std::string> spans_to_tags(const std::vector<Span>& spans, int n, TagScheme scheme);

// convert_tags(tags, s) == spans_to_tags(tag_spans(tags), tags.size(), s): the same entities in scheme s.
std::vector<std::string> convert_tags(const std::vector<std::string>& tags, TagScheme scheme);

// Counts for entity-level scores, accumulated sentence by sentence.
struct SpanCounts {
  struct Counts {
    long gold = 0, predicted = 0, correct = 0;
  };
  Counts all;
  std::map<std::string, Counts> per_type;   // every type seen in gold or predicted
  long tokens = 0, correct_tags = 0;          // token accuracy, as conlleval prints it

  // gold.size() == pred.size(); tags must pass split_tag (an Error otherwise).
  void add(const std::vector<std::string>& gold, const std::vector<std::string>& pred);
  // {"precision","recall","f1","gold_entities","predicted_entities","correct_entities","token_accuracy",
  //  "tokens","per_type":{type:{"precision","recall","f1","gold","predicted","correct"}}}; precision is 0 with
  // no predicted entity, recall 0 with no gold one, F1 0 when both are 0 (conlleval's conventions).
  nlohmann::json to_json() const;
};

}  // namespace twin
