// The "model" section of an SNLI experiment (kept apart from snli_model.cc so the double-precision gradient
// checks can compile the model without the training library).
#include "snli_model.h"
#include "train/config.h"
#include "base/json_reader.h"

namespace twin::snli {

SnliModelConfig parse_snli_model(JsonReader& r) {
  SnliModelConfig c;
  c.kind = r.get_choice("kind", c.kind, {"cond", "wbw"});
  c.embed = r.get_int("embed", c.embed, 1, 1 << 16);
  JsonReader cr = r.child("cell");
  c.cell = parse_cell(cr);
  c.attn_dim = r.get_int("attn_dim", c.attn_dim, 0, 1 << 16);
  c.dropout = r.get_double("dropout", c.dropout, 0.0, 0.99);
  c.init_scale = r.get_double("init_scale", c.init_scale, 0.0, 10.0);
  c.freeze_embeddings = r.get_bool("freeze_embeddings", c.freeze_embeddings);
  c.exact_match = r.get_bool("exact_match", c.exact_match);
  r.finish();
  return c;
}

nlohmann::json to_json(const SnliModelConfig& c) {
  return {{"kind", c.kind},
          {"embed", c.embed},
          {"cell", to_json(c.cell)},
          {"attn_dim", c.attn_dim},
          {"dropout", c.dropout},
          {"init_scale", c.init_scale},
          {"freeze_embeddings", c.freeze_embeddings},
          {"exact_match", c.exact_match}};
}

}  // namespace twin::snli
