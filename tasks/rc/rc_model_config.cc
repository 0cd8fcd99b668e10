// The "model" section of a reading-comprehension experiment (kept apart from rc_model.cc so the double-precision
// gradient checks can compile the model without the training library). Defaults: R-Net's config.py as the LRN
// repository's rc/rnet/code runs it.
#include "base/json_reader.h"
#include "rc_model.h"
#include "train/config.h"

namespace twin::rc {

const ConfigTable<RcModelConfig>& rc_model_table() {
  return table_once<RcModelConfig>([]<class C>(ConfigTable<C>& t) {
    t.integer("word_dim", &C::word_dim, 1, 1 << 16, "word vector size E (the pretrained vectors' width)")
        .integer("char_dim", &C::char_dim, 1, 1 << 12, "character embedding size (R-Net's char_dim 8)")
        .integer("char_hidden", &C::char_hidden, 1, 1 << 14, "character RNN size per direction (R-Net's char_hidden 100)")
        .integer("layers", &C::layers, 1, 16, "encoder BiRNN layers, outputs of all concatenated (R-Net: 3)")
        .section("cell", &C::cell, &cell_table(), "every RNN's cell, hidden H (R-Net's hidden 75) (model.cell.*)")
        .flag("cell_everywhere", &C::cell_everywhere,
              "model.cell also for the character RNN and the pointer cell (false: GRUs there, as the LRN code)")
        .number("dropout", &C::dropout, 0.0, 0.99, "1 - keep_prob (0.7): RNN inputs, attentions, char embeddings")
        .number("ptr_dropout", &C::ptr_dropout, 0.0, 0.99, "1 - ptr_keep_prob (0.7): question pooling and pointer")
        .integer("ans_limit", &C::ans_limit, 0, 1 << 16, "longest decoded answer: end - start <= ans_limit (R-Net: 15)")
        .flag("freeze_words", &C::freeze_words, "keep the word vectors fixed (R-Net's word_mat trainable=False)");
  });
}

RcModelConfig parse_rc_model(JsonReader& r) { return rc_model_table().parse(r); }
nlohmann::json to_json(const RcModelConfig& c) { return rc_model_table().to_json(c); }

}  // namespace twin::rc
