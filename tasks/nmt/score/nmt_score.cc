#include "score/nmt_score.h"

#include <filesystem>

#include "data/text.h"
#include "eval/bleu.h"
#include "score/text_tok.h"

namespace twin::nmt {

nlohmann::json score_split(const NmtDataConfig& c, const std::string& split, const std::vector<std::string>& hyps,
                           const std::vector<std::string>& refs, std::vector<std::string>* detok_out) {
  BleuOptions tok;
  tok.tokenize = BleuTokenize::kNone;   // the references are tokenised already (multi-bleu.perl convention)
  tok.lowercase = true;
  const BleuScore b = corpus_bleu(hyps, {refs}, tok);
  nlohmann::json m = {{"bleu", b.score}, {"bleu_str", b.str()}, {"bleu_signature", b.signature}};
  const std::string raw = split_path(c, split, c.tgt, TextForm::kRaw);
  if (!std::filesystem::exists(raw)) return m;
  std::vector<std::string> detok;
  for (const auto& h : hyps) detok.push_back(c.form == TextForm::kTok ? detokenize(h, c.tgt) : h);
  BleuOptions sacre;
  sacre.tokenize = BleuTokenize::k13a;
  sacre.lowercase = c.form == TextForm::kTok;   // a model trained on lowercased text cannot be scored cased
  const BleuScore s = corpus_bleu(detok, {read_lines(raw)}, sacre);
  m["sacrebleu"] = s.score;
  m["sacrebleu_str"] = s.str();
  m["sacrebleu_signature"] = s.signature;
  if (detok_out) *detok_out = std::move(detok);
  return m;
}

}  // namespace twin::nmt
