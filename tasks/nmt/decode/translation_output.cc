#include "decode/translation_output.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "base/file_io.h"

namespace twin::nmt {

std::string translation_text(const std::vector<Translation>& tr, int nbest, const Subword& tgt) {
  std::string text;
  for (size_t i = 0; i < tr.size(); ++i) {
    if (nbest == 1) {
      text += tr[i].text + "\n";
    } else {
      for (const auto& h : tr[i].nbest) {
        char score[64];
        std::snprintf(score, sizeof score, "%.6f", h.score);
        text += std::to_string(i) + " ||| " + tgt.decode(h.tokens) + " ||| " + score + "\n";
      }
    }
  }
  return text;
}

void write_attention(const std::string& path, const std::vector<std::string>& lines, const std::vector<Translation>& tr,
                     const Subword& src, const Subword& tgt) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < tr.size(); ++i) {
    const Hypothesis& h = tr[i].nbest.front();
    std::vector<std::string> tp;
    for (auto id : h.tokens) tp.push_back(tgt.piece(id));
    tp.push_back("</s>");
    std::vector<std::string> sp = src.pieces(lines[i]);
    sp.push_back("</s>");
    out.push_back({{"source", sp}, {"target", tp}, {"weights", h.attention}});
  }
  write_text_atomic(path, out.dump() + "\n");
}

}  // namespace twin::nmt
