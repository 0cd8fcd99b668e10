#include "rc_synthetic.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/file_io.h"
#include "base/rng.h"

namespace twin::rc {

namespace {
using nlohmann::json;
const std::vector<std::string> kNames = {"Ann", "Bob", "Carl", "Dora", "Eve", "Zoë"};
const std::vector<std::string> kVerbs = {"met", "saw", "called", "helped", "paid"};

long code_points(const std::string& s) {   // UTF-8 bytes that start a character
  return std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
}

struct Sentence {
  std::string who, verb, whom;
};

// One paragraph as squad.py's jsonl line, and as the official layout's paragraph.
std::pair<json, json> paragraph(Rng& rng, const std::string& split, int p) {
  std::vector<std::string> verbs = kVerbs;
  const int n = 2 + static_cast<int>(rng.uniform_int(0, 2));
  json tokens = json::array(), offsets = json::array(), qas = json::array(), official_qas = json::array();
  std::string context;
  for (int s = 0; s < n; ++s) {
    const size_t v = static_cast<size_t>(rng.uniform_int(0, static_cast<long>(verbs.size()) - 1));
    const Sentence st{kNames[static_cast<size_t>(rng.uniform_int(0, 5))], verbs[v],
                      kNames[static_cast<size_t>(rng.uniform_int(0, 5))]};
    verbs.erase(verbs.begin() + static_cast<long>(v));   // one sentence per verb: one answer per question
    if (!context.empty()) context += " ";
    const int first = static_cast<int>(tokens.size());
    const long char_start = code_points(context);
    for (const std::string& t : {st.who, st.verb, st.whom, std::string(".")}) {
      if (t != "." && context.size() && context.back() != ' ') context += " ";
      tokens.push_back(t);
      offsets.push_back({context.size(), context.size() + t.size()});
      context += t;
    }
    const std::string id = split + "-" + std::to_string(p) + "-" + std::to_string(s);
    const std::string question = "Who " + st.verb + " " + st.whom + "?";
    qas.push_back({{"id", id}, {"question", question}, {"question_tokens", {"Who", st.verb, st.whom, "?"}},
                   {"answers", {{{"text", st.who}, {"char_start", char_start}, {"span", {first, first}},
                                 {"aligned", true}}}}});
    official_qas.push_back(
        {{"id", id}, {"question", question}, {"answers", {{{"text", st.who}, {"answer_start", char_start}}}}});
  }
  return {{{"title", split}, {"context", context}, {"tokens", tokens}, {"offsets", offsets}, {"qas", qas}},
          {{"context", context}, {"qas", official_qas}}};
}
}  // namespace

void write_synthetic_squad(const std::string& dir, std::uint64_t seed, int train_paragraphs, int eval_paragraphs,
                           int dim) {
  std::filesystem::create_directories(dir);
  Rng rng(seed);
  for (const auto& [split, n] : {std::pair<std::string, int>{"train", train_paragraphs},
                                 std::pair<std::string, int>{"heldout", eval_paragraphs},
                                 std::pair<std::string, int>{"dev", eval_paragraphs}}) {
    std::string lines;
    json official = json::array();
    for (int p = 0; p < n; ++p) {
      auto [line, para] = paragraph(rng, split, p);
      lines += line.dump() + "\n";
      official.push_back(para);
    }
    write_text_atomic(dir + "/" + split + ".jsonl", lines);
    if (split == "dev")
      write_text_atomic(dir + "/dev.json",
                        json({{"version", "1.1"}, {"data", {{{"title", "dev"}, {"paragraphs", official}}}}}).dump() +
                            "\n");
  }
  std::vector<std::string> words = kNames;
  words.insert(words.end(), kVerbs.begin(), kVerbs.end());
  words.insert(words.end(), {"Who", ".", "?"});
  std::string glove;
  for (size_t i = 0; i < words.size(); ++i) {
    glove += words[i];
    for (int d = 0; d < dim; ++d) glove += " " + std::to_string(static_cast<double>((i * 7 + d) % 19) / 10 - 0.9);
    glove += "\n";
  }
  write_text_atomic(dir + "/glove.txt", glove);
}

}  // namespace twin::rc
