// The small model whose checkpoints fuzz_checkpoint loads and make_checkpoint_seeds writes (the seeds must
// match the model so that a valid seed loads all the way and the fuzzer starts from the deep paths).
#pragma once
#include <memory>

#include "graph/param.h"
#include "optim/optimizer.h"
#include "train/config.h"

namespace twin::fuzz {

inline void add_fixture_params(ParamStore& store) {
  auto fill = [](Mat& m, Rng& rng) { rng.fill_uniform(m, Real(-0.1), Real(0.1)); };
  store.add("emb", 4, 3, fill);
  store.add("rnn/W", 3, 3, fill);
  store.add("out/b", 1, 4, fill);
}

// Adam has the most state entries (step counter, m, v per parameter).
inline std::unique_ptr<Optimizer> fixture_optimizer() {
  OptimConfig c;
  c.name = "adam";
  c.lr = 0.01;
  return make_optimizer(c);
}

}  // namespace twin::fuzz
