// Parallel pairs as piece ids and the training batch built from a group of them (no file or subword
// dependency, so the double-precision gradient checks compile it too).
#pragma once
#include <string>
#include <vector>

#include "data/batch.h"

namespace twin::nmt {

inline constexpr std::int32_t kPad = 0, kBos = 1, kEos = 2, kUnk = 3;   // the subword models' special ids

struct Parallel {
  std::vector<std::string> src_text, tgt_text;  // the lines as read
  std::vector<Ids> src, tgt;                    // pieces + EOS
  std::vector<long> line;                       // 1-based line number of each kept pair
};

// A training batch: time-major source and target. Target input is BOS y_1..y_{n-1}; output y_1..y_n (= EOS).
struct NmtBatch {
  SeqBatch src;                                 // [S, B], ends with EOS
  SeqBatch tgt_in, tgt_out;                     // [T, B]; mask on tgt_out
  std::vector<int> index;                       // example ids
  long target_tokens() const { return static_cast<long>(tgt_out.tokens()); }
};
NmtBatch make_nmt_batch(const Parallel& data, const std::vector<int>& index);

}  // namespace twin::nmt
