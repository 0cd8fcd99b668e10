#include "lm_perplexity.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/check.h"
#include "ops/ops.h"

namespace twin::lm {

PplResult stream_perplexity(const LmModel& model, const Ids& stream, int batch, int bptt,
                            std::vector<double>* position_nll) {
  const IdMat data = batchify(stream, std::min<Index>(batch, static_cast<Index>(stream.size()) / 2));
  const Index L = data.rows();   // column b holds stream[b*L, (b+1)*L)
  if (position_nll) position_nll->assign(stream.size(), std::nan(""));
  PplResult r;
  LmState state;
  Rng unused(0);
  IdMat input, target;
  Graph g(Mode::kInfer);
  for (Index w = 0; w < num_windows(data, bptt); ++w) {
    window(data, w, bptt, input, target);
    g.clear();
    if (position_nll) {
      const Mat nll = model.token_nll(g, input, target, state);   // [T, B]; target row t is data row w*bptt+t+1
      for (Index t = 0; t < nll.rows(); ++t)
        for (Index b = 0; b < nll.cols(); ++b) {
          const double v = static_cast<double>(nll(t, b));
          (*position_nll)[static_cast<size_t>(b * L + w * bptt + t + 1)] = v;
          r.nll += v;
        }
    } else {
      r.nll += model.loss(g, input, target, state, unused).val()(0, 0);
    }
    r.tokens += static_cast<double>(input.size());
  }
  return r;
}

std::string sentence_logprob_lines(const Ids& stream, const std::vector<double>& position_nll, std::int32_t eos) {
  TW_CHECK(position_nll.size() == stream.size(), "sentence_logprob_lines: ", position_nll.size(), " scores for ",
           stream.size(), " tokens");
  std::string out;
  double lp = 0;
  long scored = 0;
  char buf[64];
  for (size_t i = 0; i < stream.size(); ++i) {
    if (!std::isnan(position_nll[i])) {
      lp -= position_nll[i];
      ++scored;
    }
    if (stream[i] == eos || i + 1 == stream.size()) {
      std::snprintf(buf, sizeof buf, "%.17g\t%ld\n", lp, scored);
      out += buf;
      lp = 0;
      scored = 0;
    }
  }
  return out;
}

}  // namespace twin::lm
