// The "model" section of a classification experiment (kept apart from classify_model.cc so the
// double-precision gradient checks can compile the model without the training library).
#include "classify_model.h"
#include "train/config.h"
#include "base/json_reader.h"

namespace twin::classify {

ClassifyModelConfig parse_classify_model(JsonReader& r) {
  ClassifyModelConfig c;
  c.embed = r.get_int("embed", c.embed, 1, 1 << 16);
  c.encoder = r.get_choice("encoder", c.encoder, {"rnn", "self_attention"});
  JsonReader cr = r.child("cell");
  c.cell = parse_cell(cr);
  c.bidirectional = r.get_bool("bidirectional", c.bidirectional);
  c.pooling = r.get_choice("pooling", c.pooling, {"last", "mean", "attentive"});
  c.attention = r.get_choice("attention", c.attention, {"additive", "dot"});
  c.attn_dim = r.get_int("attn_dim", c.attn_dim, 0, 1 << 16);
  JsonReader sr = r.child("self_attention");
  SelfAttentionConfig& s = c.self_attention;
  s.heads = sr.get_int("heads", static_cast<int>(s.heads), 1, 1 << 10);
  s.ff_dim = sr.get_int("ff_dim", static_cast<int>(s.ff_dim), 0, 1 << 20);
  s.layers = sr.get_int("layers", s.layers, 1, 64);
  s.position = sr.get_choice("position", s.position, {"sinusoidal", "learned", "relative", "none"});
  s.max_len = sr.get_int("max_len", static_cast<int>(s.max_len), 1, 1 << 20);
  s.clip_k = sr.get_int("clip_k", static_cast<int>(s.clip_k), 0, 1 << 20);
  s.dropout = sr.get_double("dropout", s.dropout, 0.0, 0.99);
  sr.finish();
  c.dropout_embed = r.get_double("dropout_embed", c.dropout_embed, 0.0, 0.99);
  c.dropout = r.get_double("dropout", c.dropout, 0.0, 0.99);
  c.init_scale = r.get_double("init_scale", c.init_scale, 0.0, 10.0);
  c.freeze_embeddings = r.get_bool("freeze_embeddings", c.freeze_embeddings);
  r.finish();
  if (c.encoder == "self_attention" && c.pooling == "last")
    r.fail("pooling", "\"last\" needs the rnn encoder: a self-attention block has no final state (use \"mean\" or "
                      "\"attentive\")");
  if (c.encoder == "self_attention" && c.bidirectional)
    r.fail("bidirectional", "is an rnn setting; the self-attention block sees both directions already");
  if (c.encoder == "self_attention" && c.embed % c.self_attention.heads != 0)
    r.fail("self_attention", "heads = " + std::to_string(c.self_attention.heads) + " must divide embed = " +
                                 std::to_string(c.embed) + " (the block's width is the embedding size)");
  if (c.encoder == "rnn" && c.cell.hidden <= 0) r.fail("cell", "needs \"hidden\" > 0 with the rnn encoder");
  return c;
}

nlohmann::json to_json(const ClassifyModelConfig& c) {
  const SelfAttentionConfig& s = c.self_attention;
  return {{"embed", c.embed},
          {"encoder", c.encoder},
          {"cell", to_json(c.cell)},
          {"bidirectional", c.bidirectional},
          {"pooling", c.pooling},
          {"attention", c.attention},
          {"attn_dim", c.attn_dim},
          {"self_attention",
           {{"heads", s.heads},
            {"ff_dim", s.ff_dim},
            {"layers", s.layers},
            {"position", s.position},
            {"max_len", s.max_len},
            {"clip_k", s.clip_k},
            {"dropout", s.dropout}}},
          {"dropout_embed", c.dropout_embed},
          {"dropout", c.dropout},
          {"init_scale", c.init_scale},
          {"freeze_embeddings", c.freeze_embeddings}};
}

}  // namespace twin::classify
