#include "rc_vocab.h"

#include <algorithm>
#include <unordered_set>

#include "base/check.h"
#include "data/text.h"
#include "nn/glove_lines.h"

namespace twin::rc {

namespace {
std::string ascii_mapped(std::string_view s, bool upper_first, bool upper_rest) {
  std::string out(s);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const bool up = i == 0 ? upper_first : upper_rest;
    char& ch = out[i];
    if (up && ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
    if (!up && ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  }
  return out;
}

// Counts every token of `text` and every character of those tokens.
void count_text(const RcText& text, TokenCounts& words, TokenCounts& chars) {
  for (const std::string& t : text.tokens) {
    words.add(t);
    for (const std::string& ch : utf8_chars(t)) chars.add(ch);
  }
}

void encode_text(RcText& text, const RcVocabs& v) {
  text.words.clear();
  text.chars.clear();
  text.char_begin.assign(1, 0);
  for (const std::string& t : text.tokens) {
    text.words.push_back(v.word_id(t));
    for (const std::string& ch : utf8_chars(t)) text.chars.push_back(v.chars.id(ch));
    text.char_begin.push_back(static_cast<int>(text.chars.size()));
  }
}

// Rows t*B + b of `words` and `chars` (rc_batch.h) of text b.
void fill(const RcText& text, Index b, Index B, Index Lc, std::vector<int>& words, std::vector<int>& chars,
          Mat& mask) {
  for (int t = 0; t < text.size(); ++t) {
    const Index row = t * B + b;
    words[static_cast<std::size_t>(row)] = text.words[static_cast<std::size_t>(t)];
    mask(row, 0) = 1;
    const int begin = text.char_begin[static_cast<std::size_t>(t)];
    const Index n = std::min<Index>(Lc, text.char_begin[static_cast<std::size_t>(t) + 1] - begin);
    for (Index c = 0; c < n; ++c)
      chars[static_cast<std::size_t>(row * Lc + c)] = text.chars[static_cast<std::size_t>(begin + c)];
  }
}
}  // namespace

int RcVocabs::word_id(std::string_view token) const {
  // R-Net's _get_word tries (word, word.lower(), word.capitalize(), word.upper()); GloVe 6B is lowercased.
  for (const std::string& form : {std::string(token), ascii_mapped(token, false, false),
                                  ascii_mapped(token, true, false), ascii_mapped(token, true, true)}) {
    const int id = words.find(form);
    if (id >= 0) return id;
  }
  return kUnkId;
}

std::vector<std::string> vector_file_words(const std::string& path) {
  LineReader in(path);
  GloveLines lines(0, [&path](long n) { return path + ":" + std::to_string(n); });
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  std::string line;
  while (in.next(line)) {
    if (!lines.read(line)) continue;
    TW_CHECK(seen.insert(lines.word()).second, lines.where(), ": word '", lines.word(),
             "' again: a vectors file has one line per word");
    out.push_back(lines.word());
  }
  TW_CHECK(!out.empty(), path, ": no vectors (expected GloVe lines 'word v1 ... vD')");
  return out;
}

RcVocabs build_vocabs(const std::vector<RcExample>& train, const RcDataConfig& c) {
  TokenCounts words, chars;
  std::unordered_set<const RcParagraph*> counted;
  for (const RcExample& e : train) {
    if (counted.insert(e.paragraph.get()).second) count_text(e.paragraph->passage, words, chars);
    count_text(e.question, words, chars);
  }
  RcVocabs v;
  if (c.embeddings.empty()) {
    v.words = Vocab::from_counts(words, pad_unk_options(c.min_count));
  } else {
    for (const std::string& w : vector_file_words(c.embeddings)) v.words.add(w);
    v.words.freeze();
  }
  v.chars = Vocab::from_counts(chars, WordCharVocabs::kOptions);
  return v;
}

void encode(std::vector<RcExample>& split, const RcVocabs& v) {
  std::unordered_set<const RcParagraph*> done;
  for (RcExample& e : split) {
    if (done.insert(e.paragraph.get()).second) encode_text(e.paragraph->passage, v);
    encode_text(e.question, v);
  }
}

RcBatch make_batch(const std::vector<const RcExample*>& examples, int char_limit, bool with_answers) {
  TW_CHECK(!examples.empty(), "rc make_batch: no examples");
  TW_CHECK(char_limit > 0, "rc make_batch: char_limit ", char_limit, ", expected > 0");
  RcBatch r;
  r.batch = static_cast<Index>(examples.size());
  r.word_len = char_limit;
  for (const RcExample* e : examples) {
    TW_CHECK(e->paragraph->passage.encoded() && e->question.encoded(), "rc make_batch: question '", e->id,
             "' is not encoded (call encode() with the vocabularies first)");
    r.passage_len = std::max<Index>(r.passage_len, e->paragraph->passage.size());
    r.question_len = std::max<Index>(r.question_len, e->question.size());
  }
  const Index B = r.batch, Lc = r.word_len;
  r.passage_words.assign(static_cast<std::size_t>(r.passage_len * B), kPadId);
  r.question_words.assign(static_cast<std::size_t>(r.question_len * B), kPadId);
  r.passage_chars.assign(static_cast<std::size_t>(r.passage_len * B * Lc), kPadId);
  r.question_chars.assign(static_cast<std::size_t>(r.question_len * B * Lc), kPadId);
  r.passage_mask = Mat::Zero(r.passage_len * B, 1);
  r.question_mask = Mat::Zero(r.question_len * B, 1);
  for (Index b = 0; b < B; ++b) {
    const RcExample& e = *examples[static_cast<std::size_t>(b)];
    fill(e.paragraph->passage, b, B, Lc, r.passage_words, r.passage_chars, r.passage_mask);
    fill(e.question, b, B, Lc, r.question_words, r.question_chars, r.question_mask);
    if (!with_answers) continue;
    TW_CHECK(!e.answers.empty(), "rc make_batch: question '", e.id, "' has no answer to train on");
    const RcAnswer& a = e.answers.front();
    TW_CHECK(a.first >= 0 && a.first <= a.last && a.last < e.paragraph->passage.size(), "rc make_batch: question '",
             e.id, "': answer span [", a.first, ", ", a.last, "] outside its passage of ", e.paragraph->passage.size(),
             " tokens");
    r.answer_start.push_back(a.first);
    r.answer_end.push_back(a.last);
  }
  return r;
}

RcBatch make_batch(const std::vector<RcExample>& data, const std::vector<int>& ids, int char_limit,
                   bool with_answers) {
  std::vector<const RcExample*> ex;
  ex.reserve(ids.size());
  for (int i : ids) {
    TW_CHECK(i >= 0 && static_cast<std::size_t>(i) < data.size(), "rc make_batch: example index ", i,
             " out of range [0, ", data.size(), ")");
    ex.push_back(&data[static_cast<std::size_t>(i)]);
  }
  return make_batch(ex, char_limit, with_answers);
}

}  // namespace twin::rc
