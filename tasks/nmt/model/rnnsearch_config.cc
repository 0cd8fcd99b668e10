// The "model" section of an NMT experiment (kept apart from rnnsearch.cc so the double-precision gradient
// checks can compile the model without the training library).
#include "model/rnnsearch.h"
#include "train/config.h"
#include "base/json_reader.h"

namespace twin::nmt {

const ConfigTable<NmtModelConfig>& nmt_model_table() {
  return table_once<NmtModelConfig>([]<class C>(ConfigTable<C>& t) {
    t.integer("embed", &C::embed, 1, 1 << 16, "embedding size E, source and target")
        .section("cell", &C::cell, &cell_table(), "every recurrent cell (model.cell.*)")
        .integer("attn_dim", &C::attn_dim, 0, 1 << 16, "attention size A; 0 = H")
        .integer("readout", &C::readout, 0, 1 << 16, "readout size R; 0 = E")
        .choice("encoder", &C::encoder, kNmtEncoderNames, "bidirectional encoder, or the ATR paper's context-aware one")
        .integer("encoder_layers", &C::encoder_layers, 1, 16, "stacked encoder layers")
        .integer("decoder_layers", &C::decoder_layers, 1, 16, "decoder layers (1 = the paper's two-level decoder)")
        .number("dropout_embed", &C::dropout_embed, 0.0, 0.99, "on source and target embeddings")
        .number("dropout_readout", &C::dropout_readout, 0.0, 0.99, "on the readout before the softmax")
        .number("label_smoothing", &C::label_smoothing, 0.0, 0.99, "label smoothing of the cross-entropy")
        .flag("tie_target", &C::tie_target, "softmax weights = target embedding (needs readout == embed)")
        .number("init_scale", &C::init_scale, 0.0, 10.0, "uniform(-a, a) for embeddings, attention, readout");
    t.rule([](const C& c) -> std::pair<std::string, std::string> {
      const int R = c.readout ? c.readout : c.embed;
      if (!c.tie_target || R == c.embed) return {"", ""};
      return {"tie_target", "needs model.readout (" + std::to_string(R) + ") == model.embed (" +
                                std::to_string(c.embed) + ")"};
    });
  });
}

NmtModelConfig parse_nmt_model(JsonReader& r) { return nmt_model_table().parse(r); }
nlohmann::json to_json(const NmtModelConfig& c) { return nmt_model_table().to_json(c); }

}  // namespace twin::nmt
