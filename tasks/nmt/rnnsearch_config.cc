// The "model" section of an NMT experiment (kept apart from rnnsearch.cc so the double-precision gradient
// checks can compile the model without the training library).
#include "rnnsearch.h"
#include "train/config.h"
#include "base/json_reader.h"

namespace twin::nmt {

NmtModelConfig parse_nmt_model(JsonReader& r) {
  NmtModelConfig c;
  c.embed = r.get_int("embed", c.embed, 1, 1 << 16);
  JsonReader cr = r.child("cell");
  c.cell = parse_cell(cr);
  c.attn_dim = r.get_int("attn_dim", c.attn_dim, 0, 1 << 16);
  c.readout = r.get_int("readout", c.readout, 0, 1 << 16);
  c.encoder = r.get_choice("encoder", c.encoder, {"bidi", "ca"});
  c.encoder_layers = r.get_int("encoder_layers", c.encoder_layers, 1, 16);
  c.decoder_layers = r.get_int("decoder_layers", c.decoder_layers, 1, 16);
  c.dropout_embed = r.get_double("dropout_embed", c.dropout_embed, 0.0, 0.99);
  c.dropout_readout = r.get_double("dropout_readout", c.dropout_readout, 0.0, 0.99);
  c.label_smoothing = r.get_double("label_smoothing", c.label_smoothing, 0.0, 0.99);
  c.tie_target = r.get_bool("tie_target", c.tie_target);
  c.init_scale = r.get_double("init_scale", c.init_scale, 0.0, 10.0);
  const int R = c.readout ? c.readout : c.embed;
  if (c.tie_target && R != c.embed)
    r.fail("tie_target", "needs model.readout (" + std::to_string(R) + ") == model.embed (" +
                             std::to_string(c.embed) + ")");
  r.finish();
  return c;
}

nlohmann::json to_json(const NmtModelConfig& c) {
  return {{"embed", c.embed},
          {"cell", to_json(c.cell)},
          {"attn_dim", c.attn_dim},
          {"readout", c.readout},
          {"encoder", c.encoder},
          {"encoder_layers", c.encoder_layers},
          {"decoder_layers", c.decoder_layers},
          {"dropout_embed", c.dropout_embed},
          {"dropout_readout", c.dropout_readout},
          {"label_smoothing", c.label_smoothing},
          {"tie_target", c.tie_target},
          {"init_scale", c.init_scale}};
}

}  // namespace twin::nmt
