// Gradient checks (double precision) of the whole SelfAttentionEncoder: one and two layers, each position
// encoding, a padded batch, every parameter and the input; with dropout (mask fixed by a reseeded Rng).
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "gradcheck.h"
#include "graph/init.h"
#include "nn/self_attention.h"
#include "ops/ops.h"
#include "test_util.h"

namespace twin::test {

class SelfAttentionGrad : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(SelfAttentionGrad, EncoderWithPadding) {
  const auto& [position, layers] = GetParam();
  const Index T = 4, B = 2, D = 4;
  SelfAttentionConfig cfg;
  cfg.dim = D;
  cfg.heads = 2;
  cfg.ff_dim = 6;
  cfg.layers = layers;
  cfg.position = *value_of(kPositionEncodingNames, position);
  cfg.max_len = 5;
  cfg.clip_k = 1;        // T = 4: distances up to ±3 are clipped to ±1
  cfg.dropout = 0.2;
  GradCheck gc(static_cast<std::uint64_t>(layers) * 31 + position.size());
  ParamStore store(17);
  SelfAttentionEncoder enc(cfg, store, "sa", init::uniform(0.6));
  // Nonzero LayerNorm biases and non-unit gains, so their gradients are not checked only at a special point.
  for (const auto& p : store.all())
    if (p->name.find("ln") != std::string::npos) p->value.array() += Real(0.2);
  auto x = gc.input(T * B, D);
  gc.also_perturb(store);
  const Mat mask = time_major_mask(T, {4, 2});
  gc.check([&](Graph& g) {
    Rng rng(5);   // the same dropout masks in every evaluation
    return enc.apply(x.in(g), mask, B, rng);
  });
}

INSTANTIATE_TEST_SUITE_P(Positions, SelfAttentionGrad,
                         ::testing::Combine(::testing::Values("sinusoidal", "learned", "relative", "none"),
                                            ::testing::Values(1, 2)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" + std::to_string(std::get<1>(info.param)) + "layer";
                         });

}  // namespace twin::test
