// The NER model's "model" section: parsed here, apart from ner_model.cc, so that the double-precision gradient
// checks can compile the model without the trainer's config code.
#include "base/json_reader.h"
#include "ner_model.h"
#include "train/config.h"

namespace twin::ner {

NerModelConfig parse_ner_model(JsonReader& r) {
  NerModelConfig c;
  c.word_embed = r.get_int("word_embed", c.word_embed, 1, 1 << 16);
  c.char_embed = r.get_int("char_embed", c.char_embed, 0, 1 << 16);
  JsonReader cc = r.child("char_cell");
  c.char_cell = parse_cell(cc);
  if (c.char_cell.hidden == 0) c.char_cell.hidden = 25;
  JsonReader wc = r.child("cell");
  c.cell = parse_cell(wc);
  if (c.cell.hidden == 0) c.cell.hidden = 100;
  c.init_scale = r.get_double("init_scale", c.init_scale, 0.0, 10.0);
  c.dropout = r.get_double("dropout", c.dropout, 0.0, 0.99);
  c.objective = r.get_choice("objective", c.objective, {"nll", "hinge"});
  c.eta = r.get_double("eta", c.eta, 0.0, 100.0);
  r.finish();
  return c;
}

nlohmann::json to_json(const NerModelConfig& c) {
  return {{"word_embed", c.word_embed}, {"char_embed", c.char_embed}, {"char_cell", to_json(c.char_cell)},
          {"cell", to_json(c.cell)},    {"init_scale", c.init_scale}, {"dropout", c.dropout},
          {"objective", c.objective},   {"eta", c.eta}};
}

}  // namespace twin::ner
