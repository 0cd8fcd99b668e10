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

std::unique_ptr<CwsModel> CwsParts::make(const CwsModelConfig& m, const CwsDataConfig& d, const CwsVocab& v,
                                          ParamStore& store) {
  return std::make_unique<CwsModel>(m, v.chars.size(), d.bigrams ? v.bigrams.size() : 0, store);
}

void CwsParts::save_vocabs(const CwsVocab& v, const CwsDataConfig& d, const std::string& run_dir) {
  v.chars.save(run_dir + "/vocab.chars.txt");
  if (d.bigrams) v.bigrams.save(run_dir + "/vocab.bigrams.txt");
}

CwsVocab CwsParts::load_vocabs(CwsDataConfig& d, const std::string& run_dir) {
  return load_run_vocab(
      run_dir, "cws segment", "vocab.chars.txt", "vocabulary", d.dir + "/" + d.train + ".seg",
      [&] {
        CwsVocab v;
        v.chars = Vocab::load(run_dir + "/vocab.chars.txt", pad_unk_options());
        if (d.bigrams) v.bigrams = Vocab::load(run_dir + "/vocab.bigrams.txt", pad_unk_options());
        return v;
      },
      [&] { return build_vocab(read_split(d, d.train), d); });
}

std::vector<std::vector<std::string>> Segmenter::segment(const std::vector<std::string>& lines,
                                                         const BatchingOptions& batching,
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
  for (const auto& idx : eval_batches(sents, sentence_length, batching)) {
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
    const auto words = seg.segment(lines, seg.data.eval_options(a.batch), input_name(a));
    std::string text;
    for (const auto& s : words) {
      for (size_t k = 0; k < s.size(); ++k) text += (k ? "  " : "") + s[k];
      text += '\n';
    }
    return ModeOutput{text, done_line(kSegmentMode.name, lines.size(), "lines", a)};
  });
}

}  // namespace twin::cws
