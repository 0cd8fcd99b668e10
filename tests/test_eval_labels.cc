// core/eval/labels: the argmax and softmax probability every classifier labels through, on hand-computed rows.
#include <gtest/gtest.h>

#include <cmath>

#include "base/check.h"
#include "eval/labels.h"

namespace twin {
namespace {

TEST(ArgmaxRows, FirstMaximumAndItsSoftmaxProbabilityScatteredToTheExamples) {
  Mat lg(3, 3);
  lg << 0, std::log(3.0f), 0,   // softmax (1, 3, 1) / 5: label 1 with 0.6
      2, 2, 1,                   // a tie: the first maximum, label 0, with e^0 / (1 + 1 + e^-1)
      -1, -1, -1;                // all equal: label 0 with 1/3
  std::vector<LabelProbability> out(5);
  argmax_rows(lg, {4, 0, 2}, out);
  EXPECT_EQ(out[4].label, 1);
  EXPECT_NEAR(out[4].probability, 0.6, 1e-6);
  EXPECT_EQ(out[0].label, 0);
  EXPECT_NEAR(out[0].probability, 1.0 / (2.0 + std::exp(-1.0)), 1e-6);
  EXPECT_EQ(out[2].label, 0);
  EXPECT_NEAR(out[2].probability, 1.0 / 3.0, 1e-6);
  EXPECT_EQ(out[1].probability, 0.0);   // examples of no row are left alone
  EXPECT_THROW(argmax_rows(lg, {0, 1}, out), Error);      // a row without its example
  EXPECT_THROW(argmax_rows(lg, {0, 1, 5}, out), Error);   // an example outside out
}

}  // namespace
// What classify predict and snli predict print: the label's name, a tab, the probability in %.6g.
TEST(LabelProbabilityLines, NameTabProbabilityPerExampleInOrder) {
  const std::vector<LabelProbability> out = {{2, 0.5}, {0, 1.0}, {1, 1.0 / 3.0}};
  const std::vector<std::string> names = {"entailment", "neutral", "contradiction"};
  EXPECT_EQ(label_probability_lines(out, [&](int l) { return names[static_cast<size_t>(l)]; }),
            "contradiction\t0.5\nentailment\t1\nneutral\t0.333333\n");
  EXPECT_EQ(label_probability_lines(out, [](int l) { return std::to_string(l); }), "2\t0.5\n0\t1\n1\t0.333333\n");
  EXPECT_EQ(label_probability_lines({}, [](int l) { return std::to_string(l); }), "");
}

}  // namespace twin
