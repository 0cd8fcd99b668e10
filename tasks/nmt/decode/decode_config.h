// The decode.* section of an NMT experiment: the beam search of the test splits and the dev beam used during
// training (read by NmtTask and by `nmt translate` from a model's embedded config).
#pragma once
#include <nlohmann/json.hpp>

#include "base/config_table.h"
#include "base/json_reader.h"
#include "decode/beam_search.h"

namespace twin::nmt {

struct DecodeConfig {
  SearchConfig search;                 // beam 10, length-normalised (the paper), for test splits
  int dev_beam = 1;                    // dev BLEU during training: greedy is 10x cheaper and ranks the same
};
const ConfigTable<DecodeConfig>& decode_table();
DecodeConfig parse_decode(JsonReader& r);   // search.bos/eos are the subword models' kBos/kEos
nlohmann::json to_json(const DecodeConfig& c);

}  // namespace twin::nmt
