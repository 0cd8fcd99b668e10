#include "cws_segment.h"

#include <cstdio>
#include <fstream>
#include <iostream>

#include "base/check.h"
#include "base/json_reader.h"
#include "base/threads.h"
#include "bmes.h"
#include "data/text.h"
#include "train/checkpoint.h"
#include "train/predict_cli.h"
#include "train/trained_run.h"

namespace twin::cws {

namespace {
const VocabOptions kVocabOptions{{kPadWord, kUnkWord}, kUnkWord, false, 1, 0};

}  // namespace

void save_vocab(const CwsVocab& v, const std::string& run_dir, bool bigrams) {
  v.chars.save(run_dir + "/vocab.chars.txt");
  if (bigrams) v.bigrams.save(run_dir + "/vocab.bigrams.txt");
}

Segmenter Segmenter::load(const std::string& run_dir) {
  Segmenter s;
  read_run_sections(s, run_dir, "cws", "bigrams", parse_cws_data, parse_cws_model);
  load_run_vocab(
      run_dir, "cws segment", "vocab.chars.txt", "vocabulary", s.data.dir + "/" + s.data.train + ".seg",
      [&] {
        s.vocab.chars = Vocab::load(run_dir + "/vocab.chars.txt", kVocabOptions);
        if (s.data.bigrams) s.vocab.bigrams = Vocab::load(run_dir + "/vocab.bigrams.txt", kVocabOptions);
      },
      [&] { s.vocab = build_vocab(read_split(s.data, s.data.train), s.data); });
  load_run_model(s, run_dir, [&](ParamStore& store) {
    return std::make_unique<CwsModel>(s.model_cfg, s.vocab.chars.size(), s.data.bigrams ? s.vocab.bigrams.size() : 0,
                                      store);
  });
  return s;
}

std::vector<std::vector<std::string>> Segmenter::segment(const std::vector<std::string>& lines, int batch,
                                                         const std::string& source) const {
  std::vector<Sentence> sents;
  std::vector<int> index_of(lines.size(), -1);   // line -> sentence, -1 for a line without characters
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string where = source + ":" + std::to_string(i + 1);
    Sentence s;
    for (const std::string& chunk : split_whitespace(lines[i]))
      for (std::string& ch : utf8_chars(chunk, where)) s.chars.push_back(std::move(ch));
    if (s.chars.empty()) continue;
    s.tags.assign(s.chars.size(), 0);   // unused: there is no gold
    index_of[i] = static_cast<int>(sents.size());
    sents.push_back(std::move(s));
  }
  std::vector<std::vector<std::string>> words(sents.size());
  for (const auto& idx : eval_batches(sents, sentence_length, batch)) {
    const CwsBatch b = make_batch(sents, idx, vocab, data.bigrams);
    const auto tags = model->decode(b);
    for (size_t k = 0; k < idx.size(); ++k) {
      const auto i = static_cast<size_t>(idx[k]);
      words[i] = tags_to_words(sents[i].chars, tags[k]);
    }
  }
  std::vector<std::vector<std::string>> out(lines.size());
  for (size_t i = 0; i < lines.size(); ++i)
    if (index_of[i] >= 0) out[i] = std::move(words[static_cast<size_t>(index_of[i])]);
  return out;
}

int segment_main(int argc, char** argv) {
  return lines_mode_main<Segmenter>(
      argc, argv, kSegmentMode, [](const Segmenter& seg, const std::vector<std::string>& lines, const PredictArgs& a) {
    const auto words = seg.segment(lines, a.batch > 0 ? a.batch : seg.data.eval_batch_size, input_name(a));
    std::string text;
    for (const auto& s : words) {
      for (size_t k = 0; k < s.size(); ++k) text += (k ? "  " : "") + s[k];
      text += '\n';
    }
    return ModeOutput{text, done_line(kSegmentMode.name, lines.size(), "lines", a)};
  });
}

}  // namespace twin::cws
