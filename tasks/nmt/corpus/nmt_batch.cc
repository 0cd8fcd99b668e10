#include "corpus/nmt_batch.h"

namespace twin::nmt {

NmtBatch make_nmt_batch(const Parallel& data, const std::vector<int>& index) {
  NmtBatch b;
  b.index = index;
  b.src = pad_batch(data.src, index, kPad);
  std::vector<Ids> in, out;
  in.reserve(index.size());
  out.reserve(index.size());
  for (int i : index) {
    const Ids& t = data.tgt[static_cast<size_t>(i)];
    Ids x;
    x.reserve(t.size());
    x.push_back(kBos);
    x.insert(x.end(), t.begin(), t.end() - 1);
    in.push_back(std::move(x));
    out.push_back(t);
  }
  b.tgt_in = pad_batch(in, kPad);
  b.tgt_out = pad_batch(out, kPad);
  return b;
}

}  // namespace twin::nmt
