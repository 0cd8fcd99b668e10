#include "decode/decode_config.h"

#include "corpus/nmt_batch.h"

namespace twin::nmt {

const ConfigTable<DecodeConfig>& decode_table() {
  return table_once<DecodeConfig>([]<class C>(ConfigTable<C>& t) {
    t.integer("beam", [](C& c) -> int& { return c.search.beam; }, 1, 1000, "beam size for the test splits (1 = greedy)")
        .choice("normalize", [](C& c) -> LengthNorm& { return c.search.normalize; }, kLengthNormNames,
                "hypothesis score: log-probability, divided by length, or GNMT's length penalty")
        .number("alpha", [](C& c) -> double& { return c.search.alpha; }, 0.0, 10.0, "GNMT length penalty alpha")
        .number("max_len_a", [](C& c) -> double& { return c.search.max_len_a; }, 0.0, 100.0,
                "at most floor(a x source length + b) target tokens")
        .number("max_len_b", [](C& c) -> double& { return c.search.max_len_b; }, 0.0, 10000.0, "see max_len_a")
        .integer("dev_beam", &C::dev_beam, 1, 1000, "beam for dev BLEU during training (1 = greedy)");
  });
}

DecodeConfig parse_decode(JsonReader& r) {
  DecodeConfig c = decode_table().parse(r);
  c.search.bos = kBos;
  c.search.eos = kEos;
  return c;
}

nlohmann::json to_json(const DecodeConfig& c) { return decode_table().to_json(c); }

}  // namespace twin::nmt
