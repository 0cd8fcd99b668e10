// The "model" section of an NMT experiment (kept apart from the models so the double-precision gradient
// checks can compile them without the training library).
#include "model/nmt_model.h"
#include "train/config.h"
#include "base/json_reader.h"

namespace twin::nmt {

namespace {
const ConfigTable<DtmtConfig>& dtmt_table() {
  return table_once<DtmtConfig>([]<class C>(ConfigTable<C>& t) {
    t.integer("encoder_transitions", &C::encoder_transitions, 1, 64, "L_s: T-GRUs after the L-GRU of every encoder step")
        .integer("query_transitions", &C::query_transitions, 1, 64, "L_q: T-GRUs of the query transition over (y_{t-1}, s_{t-1})")
        .integer("decoder_transitions", &C::decoder_transitions, 1, 64, "L_d: T-GRUs of the decoder transition over the context")
        .integer("heads", &C::heads, 1, 1024, "attention heads; divides the attention size A and 2 model.cell.hidden")
        .flag("linear_transform", &C::linear_transform, "the L-GRU's l * H(x) (false: a GRU; needs model.cell.type lgru)");
  });
}

// The DTMT keys that depend on the rest of the section; "" when they hold.
std::pair<std::string, std::string> dtmt_rule(const NmtModelConfig& c) {
  if (c.kind != NmtKind::kDtmt) return {"", ""};
  const int H = c.cell.hidden, A = c.attn_dim ? c.attn_dim : H, n = c.dtmt.heads;
  if (H > 0 && (A % n != 0 || (2 * H) % n != 0))
    return {"dtmt.heads", "= " + std::to_string(n) + " must divide the attention size A = " + std::to_string(A) +
                              " (model.attn_dim, 0 = model.cell.hidden) and the annotation width 2H = " +
                              std::to_string(2 * H)};
  if (!c.dtmt.linear_transform && c.cell.type != "lgru")
    return {"dtmt.linear_transform", "= false removes the L-GRU's H(x) and needs model.cell.type \"lgru\", got \"" +
                                         c.cell.type + "\""};
  // A deep transition (rnn/deep_transition.h) has no whole-layer kernel: its first cell would run step by step
  // and model.cell.kernel would be ignored without a word.
  if (c.cell.kernel != CellKernel::kSuite)
    return {"cell.kernel", "= \"" + std::string(name_of(kCellKernelNames, c.cell.kernel)) +
                               "\" runs a whole LSTM or GRU layer at once; DTMT's deep transitions run their first cell "
                               "and its T-GRUs step by step: leave it at \"suite\" with model.kind \"dtmt\""};
  if (c.encoder != NmtEncoder::kBidi || c.encoder_layers != 1 || c.decoder_layers != 1)
    return {"kind", "\"dtmt\" has its own bidirectional deep-transition encoder and decoder: leave model.encoder, "
                    "model.encoder_layers and model.decoder_layers at bidi, 1, 1"};
  return {"", ""};
}
}  // namespace

const ConfigTable<NmtModelConfig>& nmt_model_table() {
  return table_once<NmtModelConfig>([]<class C>(ConfigTable<C>& t) {
    t.choice("kind", &C::kind, kNmtKindNames, "RNNSearch (the ATR paper's) or DTMT (Meng & Zhang 2019, model.dtmt.*)")
        .integer("embed", &C::embed, 1, 1 << 16, "embedding size E, source and target")
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
        .number("init_scale", &C::init_scale, 0.0, 10.0, "uniform(-a, a) for embeddings, attention, readout")
        .section("dtmt", &C::dtmt, &dtmt_table(), "DTMT's depths, heads and H(x) (model.kind dtmt)");
    t.rule([](const C& c) -> std::pair<std::string, std::string> {
      const int R = c.readout ? c.readout : c.embed;
      if (!c.tie_target || R == c.embed) return {"", ""};
      return {"tie_target", "needs model.readout (" + std::to_string(R) + ") == model.embed (" +
                                std::to_string(c.embed) + ")"};
    });
    t.rule(dtmt_rule);
  });
}

NmtModelConfig parse_nmt_model(JsonReader& r) { return nmt_model_table().parse(r); }
nlohmann::json to_json(const NmtModelConfig& c) { return nmt_model_table().to_json(c); }

}  // namespace twin::nmt
