// The "model" section of a classification experiment (kept apart from classify_model.cc so the
// double-precision gradient checks can compile the model without the training library).
#include "classify_model.h"
#include "train/config.h"
#include "base/json_reader.h"

namespace twin::classify {

namespace {
using Problem = std::pair<std::string, std::string>;
}  // namespace

const ConfigTable<ClassifyModelConfig>& classify_model_table() {
  return table_once<ClassifyModelConfig>([]<class C>(ConfigTable<C>& t) {
    t.integer("embed", &C::embed, 1, 1 << 16, "word embedding size E (also the self-attention block's width)")
        .choice("encoder", &C::encoder, kEncoderNames, "the sentence encoder")
        .section("cell", &C::cell, &cell_table(), "rnn: the cell (model.cell.*; hidden > 0)")
        .flag("bidirectional", &C::bidirectional, "rnn: a forward and a backward cell, states concatenated")
        .choice("pooling", &C::pooling, kPoolingNames, "sentence vector: last state (rnn only), mean, or attention")
        .choice("attention", &C::attention, kPoolScoreNames, "attentive pooling's score")
        .integer("attn_dim", &C::attn_dim, 0, 1 << 16, "additive attentive pooling: A; 0 = the encoder width")
        .section("self_attention", &C::self_attention, &self_attention_table(), "self_attention: the block's settings")
        .number("dropout_embed", &C::dropout_embed, 0.0, 0.99, "on the word embeddings")
        .number("dropout", &C::dropout, 0.0, 0.99, "on the pooled vector, before the classifier")
        .number("init_scale", &C::init_scale, 0.0, 10.0, "uniform(-a, a) for embeddings, pooling, classifier, self-attention")
        .flag("freeze_embeddings", &C::freeze_embeddings, "keep the (pretrained) embeddings fixed");
    t.rule([](const C& c) {
      if (c.encoder == Encoder::kSelfAttention && c.pooling == Pooling::kLast)
        return Problem{"pooling", "\"last\" needs the rnn encoder: a self-attention block has no final state (use "
                                  "\"mean\" or \"attentive\")"};
      return Problem{"", ""};
    });
    t.rule([](const C& c) {
      if (c.encoder == Encoder::kSelfAttention && c.bidirectional)
        return Problem{"bidirectional", "is an rnn setting; the self-attention block sees both directions already"};
      return Problem{"", ""};
    });
    t.rule([](const C& c) {
      if (c.encoder == Encoder::kSelfAttention && c.embed % c.self_attention.heads != 0)
        return Problem{"self_attention", "heads = " + std::to_string(c.self_attention.heads) + " must divide embed = " +
                                             std::to_string(c.embed) + " (the block's width is the embedding size)"};
      return Problem{"", ""};
    });
    t.rule([](const C& c) {
      if (c.encoder == Encoder::kRnn && c.cell.hidden <= 0)
        return Problem{"cell", "needs \"hidden\" > 0 with the rnn encoder"};
      return Problem{"", ""};
    });
  });
}

ClassifyModelConfig parse_classify_model(JsonReader& r) { return classify_model_table().parse(r); }
nlohmann::json to_json(const ClassifyModelConfig& c) { return classify_model_table().to_json(c); }

}  // namespace twin::classify
