// The "model" section of an SNLI experiment (kept apart from snli_model.cc so the double-precision gradient
// checks can compile the model without the training library).
#include "snli_model.h"
#include "train/config.h"
#include "base/json_reader.h"

namespace twin::snli {

const ConfigTable<SnliModelConfig>& snli_model_table() {
  return table_once<SnliModelConfig>([]<class C>(ConfigTable<C>& t) {
    t.choice("kind", &C::kind, kSnliKindNames,
             "conditional encoding with attention (the ATR authors' code) or word-by-word attention (Rocktaschel et al.)")
        .integer("embed", &C::embed, 1, 1 << 16, "word embedding size E")
        .section("cell", &C::cell, &cell_table(), "every recurrent cell (model.cell.*)")
        .integer("attn_dim", &C::attn_dim, 0, 1 << 16, "attention size A; 0 = H")
        .number("dropout", &C::dropout, 0.0, 0.99, "on the embeddings and before the classifier")
        .number("init_scale", &C::init_scale, 0.0, 10.0, "uniform(-a, a) for embeddings, attention and linear layers")
        .flag("freeze_embeddings", &C::freeze_embeddings, "keep the (GloVe) embeddings fixed, as in the paper")
        .flag("exact_match", &C::exact_match, "append the exact-match feature to every word's embedding");
  });
}

SnliModelConfig parse_snli_model(JsonReader& r) { return snli_model_table().parse(r); }
nlohmann::json to_json(const SnliModelConfig& c) { return snli_model_table().to_json(c); }

}  // namespace twin::snli
