// The model tests' check of attention weights over a padded batch (test_classify_model's attentive pooling,
// test_snli_model's premise attention): padding gets no weight and each row is a distribution over its real steps.
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "base/real.h"
#include "data/batch.h"

namespace twin::test {

// `alpha` [B, T]: row j holds sequence j's weights over the T steps of `batch` (time-major, so step t of sequence
// j is mask row t*B + j). Expects each row to be 0 at its padded steps, > 0 at its real steps and to sum to 1
// (within 1e-5); `what` names a row in the failures ("sentence" j). Adds the padded steps it saw to *padded. A
// wrong shape is a fatal failure: call it in ASSERT_NO_FATAL_FAILURE.
inline void expect_weights_on_real_steps(const Mat& alpha, const SeqBatch& batch, const std::string& what,
                                         int* padded) {
  const Index T = batch.steps(), B = batch.size();
  ASSERT_EQ(alpha.rows(), B);
  ASSERT_EQ(alpha.cols(), T);
  for (Index j = 0; j < B; ++j) {
    double real = 0;
    for (Index t = 0; t < T; ++t) {
      if (batch.mask(t * B + j, 0) == 0) {
        EXPECT_EQ(alpha(j, t), 0) << "padded position " << t << " of " << what << " " << j;
        ++*padded;
      } else {
        EXPECT_GT(alpha(j, t), 0) << "position " << t << " of " << what << " " << j;
        real += alpha(j, t);
      }
    }
    EXPECT_NEAR(real, 1, 1e-5) << what << " " << j;
  }
}

}  // namespace twin::test
