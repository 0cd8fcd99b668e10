// The NER model's "model" section: parsed here, apart from ner_model.cc, so that the double-precision gradient
// checks can compile the model without the trainer's config code.
#include "base/json_reader.h"
#include "ner_model.h"
#include "train/config.h"

namespace twin::ner {

const ConfigTable<NerModelConfig>& ner_model_table() {
  return table_once<NerModelConfig>([]<class C>(ConfigTable<C>& t) {
    t.integer("word_embed", &C::word_embed, 1, 1 << 16, "word embedding size")
        .flag("freeze_embeddings", &C::freeze_embeddings,
              "keep the (pretrained) word embeddings fixed; the character embeddings always train")
        .integer("char_embed", &C::char_embed, 0, 1 << 16, "character embedding size; 0 = no character BiRNN")
        .section("char_cell", &C::char_cell, &cell_table(), "the character BiRNN's cell (hidden 0 = 25)")
        .section("cell", &C::cell, &cell_table(), "the word BiRNN's cell (hidden 0 = 100)")
        .number("init_scale", &C::init_scale, 0.0, 10.0, "uniform(-a, a) for embeddings and the emission layer")
        .number("dropout", &C::dropout, 0.0, 0.99, "dropout on the word BiRNN's input")
        .choice("objective", &C::objective, kCrfObjectiveNames,
                "CRF negative log-likelihood (the paper) or the max-margin hinge")
        .number("eta", &C::eta, 0.0, 100.0, "the hinge's Hamming cost per wrong tag");
  });
}

NerModelConfig parse_ner_model(JsonReader& r) {
  NerModelConfig c = ner_model_table().parse(r);
  if (c.char_cell.hidden == 0) c.char_cell.hidden = 25;   // the paper's sizes when the experiment leaves them out
  if (c.cell.hidden == 0) c.cell.hidden = 100;
  return c;
}

nlohmann::json to_json(const NerModelConfig& c) { return ner_model_table().to_json(c); }

}  // namespace twin::ner
