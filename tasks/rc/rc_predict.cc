#include "rc_predict.h"

#include <map>

#include "base/check.h"
#include "eval/squad_eval.h"
#include "rc_tokenize.h"
#include "train/predict_cli.h"

namespace twin::rc {

namespace {
using nlohmann::json;
constexpr const char* kLayout =
    "expected SQuAD's layout {\"data\": [{\"paragraphs\": [{\"context\", \"qas\": [{\"id\", \"question\"}]}]}]}";

const json& need(const json& obj, const char* key, bool (json::*is)() const noexcept, const char* type,
                 const std::string& where) {
  TW_CHECK(obj.is_object(), where, " is a JSON ", obj.type_name(), ", expected an object: ", kLayout);
  return need_field(obj, key, is, type, where, kLayout);
}

RcText text_of(const std::string& s, std::vector<ByteSpan>* offsets) {
  Tokens t = squad_tokenize(s);
  if (offsets) *offsets = std::move(t.offsets);
  RcText out;
  out.tokens = std::move(t.tokens);
  return out;
}
}  // namespace

std::vector<std::pair<int, int>> answer_spans(const RcModel& model, const std::vector<RcExample>& examples,
                                              const BatchingOptions& batching, int char_limit) {
  std::vector<std::pair<int, int>> out(examples.size());
  for (const std::vector<int>& ids : eval_batches(examples, example_length, batching)) {
    const auto spans = model.predict_spans(make_batch(examples, ids, char_limit, /*with_answers=*/false));
    for (size_t k = 0; k < ids.size(); ++k) out[static_cast<size_t>(ids[k])] = spans[k];
  }
  return out;
}

std::vector<RcExample> read_squad_questions(const json& root, const std::string& file) {
  std::vector<RcExample> out;
  std::map<std::string, std::string> first_at;   // id -> the item it was first seen at
  const json& data = need(root, "data", &json::is_array, "a list", file + ": the top level");
  for (size_t a = 0; a < data.size(); ++a) {
    const std::string wa = file + ": data[" + std::to_string(a) + "]";
    const json& paras = need(data[a], "paragraphs", &json::is_array, "a list", wa);
    for (size_t p = 0; p < paras.size(); ++p) {
      const std::string wp = wa + ".paragraphs[" + std::to_string(p) + "]";
      auto para = std::make_shared<RcParagraph>();
      para->where = wp;
      para->context = need(paras[p], "context", &json::is_string, "a string", wp).get<std::string>();
      para->passage = text_of(para->context, &para->offsets);
      TW_CHECK(para->passage.size() > 0, wp, ": the context has no token (empty or only whitespace)");
      const json& qas = need(paras[p], "qas", &json::is_array, "a list", wp);
      for (size_t q = 0; q < qas.size(); ++q) {
        const std::string wq = wp + ".qas[" + std::to_string(q) + "]";
        RcExample ex;
        ex.id = need(qas[q], "id", &json::is_string, "a string", wq).get<std::string>();
        TW_CHECK(!ex.id.empty(), wq, ": empty id");
        const auto [it, fresh] = first_at.emplace(ex.id, wq);
        TW_CHECK(fresh, wq, ": id '", ex.id, "' again (first at ", it->second, "): ids must be unique");
        ex.question = text_of(need(qas[q], "question", &json::is_string, "a string", wq).get<std::string>(), nullptr);
        TW_CHECK(ex.question.size() > 0, wq, " (id '", ex.id, "'): the question has no token");
        ex.paragraph = para;
        out.push_back(std::move(ex));
      }
    }
  }
  return out;
}

std::unique_ptr<RcModel> RcParts::make(const RcModelConfig& m, const RcDataConfig& d, const RcVocabs& v,
                                       ParamStore& store) {
  TW_CHECK(!m.freeze_words || !d.embeddings.empty(), "model.freeze_words is true but data.embeddings is \"\": "
           "every word vector would stay zero (HINT: give data.embeddings a GloVe file, or train the word vectors "
           "with model.freeze_words false)");
  return std::make_unique<RcModel>(m, v.words.size(), v.chars.size(), store);
}

RcVocabs RcParts::load_vocabs(RcDataConfig& d, const std::string& run_dir) {
  return load_kept_vocabs(run_dir, "rc predict", d.dir + "/" + d.train + ".jsonl",
                          [&] { return build_vocabs(read_split(d, d.train, true).examples, d); });
}

Predictions Reader::answer(std::vector<RcExample>& examples, const BatchingOptions& batching) const {
  encode(examples, vocab);
  return predictions_of(examples, answer_spans(*model, examples, batching, data.char_limit));
}

int predict_main(int argc, char** argv) {
  return lines_mode_main<Reader>(
      argc, argv, kPredictMode, [](const Reader& r, const std::vector<std::string>& lines, const PredictArgs& a) {
        const std::string name = input_name(a);
        std::vector<RcExample> examples = read_squad_questions(squad_parse_json(lines, name), name);
        const Predictions p = r.answer(examples, r.data.eval_options(a.batch));
        return ModeOutput{prediction_text(p), done_line(kPredictMode.name, p.size(), "answers", a)};
      });
}

}  // namespace twin::rc
