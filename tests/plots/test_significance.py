#!/usr/bin/env python3
"""plots/significance.py on hand-computed cases: the metrics of summed statistics, the paired bootstrap and
randomization tests at their limits (identical systems, a system that wins every example, a case small
enough to enumerate), seeds, determinism, and Welch's t against closed forms.
/usr/bin/python3 tests/plots/test_significance.py
"""
import math
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "plots"))
import numpy as np  # noqa: E402

import significance as sig  # noqa: E402


def acc(bits):
    return np.array([[b] for b in bits], dtype=float)


class Metrics(unittest.TestCase):
    def test_accuracy_f1_ppl_by_hand(self):
        self.assertAlmostEqual(sig.metric("accuracy", acc([1, 0, 1, 1])), 0.75)
        # two sentences: 3 of 4 gold words right with 5 predicted, 5 of 6 with 5: F1 = 2*8/(10+10)
        self.assertAlmostEqual(sig.metric("f1", [[3, 4, 5], [5, 6, 5]]), 0.8)
        # log-probabilities -ln 10 per token over 2 + 1 tokens: perplexity 10
        self.assertAlmostEqual(sig.metric("ppl", [[-2 * math.log(10), 2], [-math.log(10), 1]]), 10.0)

    def test_bleu_by_hand(self):
        perfect = [[4, 4, 4, 4, 3, 3, 2, 2, 1, 1]]
        self.assertAlmostEqual(sig.metric("bleu", perfect), 100.0)
        # every n-gram right but one word short of the reference: brevity penalty exp(1 - 4/3)
        short = [[3, 4, 3, 3, 2, 2, 1, 1, 1, 1]]
        self.assertAlmostEqual(sig.metric("bleu", short), 100.0 * math.exp(1 - 4 / 3))
        # precisions 1/2, 1/3, 1/4, 1/5 at equal length: the geometric mean (1/120)^(1/4)
        mixed = [[6, 6, 1, 2, 1, 3, 1, 4, 1, 5]]
        self.assertAlmostEqual(sig.metric("bleu", mixed), 100.0 * (1 / 120) ** 0.25)
        self.assertEqual(sig.metric("bleu", [[3, 3, 2, 3, 0, 2, 0, 1, 0, 0]]), 0.0)   # no 4-gram match

    def test_bad_shapes_are_named(self):
        with self.assertRaisesRegex(ValueError, r"f1 rows must be \[N, 3\]"):
            sig.paired_bootstrap("f1", acc([1]), acc([0]))
        with self.assertRaisesRegex(ValueError, "different numbers of examples"):
            sig.paired_bootstrap("accuracy", acc([1, 0]), acc([0]))
        with self.assertRaisesRegex(ValueError, "unknown metric kind"):
            sig.paired_bootstrap("rouge", acc([1]), acc([0]))


class Tests(unittest.TestCase):
    def test_identical_systems_give_p_1(self):
        a = acc([1, 0, 1, 1, 0, 1, 0, 0, 1, 1])
        r = sig.paired_bootstrap("accuracy", a, a.copy(), resamples=500)
        self.assertEqual((r["delta"], r["p"], r["ci95"]), (0.0, 1.0, (0.0, 0.0)))
        self.assertEqual(sig.approximate_randomization("accuracy", a, a.copy(), trials=500)["p"], 1.0)
        self.assertEqual(sig.exact_randomization("accuracy", a, a.copy()), 1.0)

    def test_a_system_that_wins_every_example(self):
        a, b = acc([1] * 40), acc([0] * 40)
        r = sig.paired_bootstrap("accuracy", a, b, resamples=1000)
        # no resample has a <= b: p is the test's resolution, 2 (1 + 0) / (1000 + 1)
        self.assertAlmostEqual(r["p"], 2 / 1001)
        self.assertEqual(r["ci95"], (1.0, 1.0))
        # only the two all-or-nothing swaps (2 of 2^40) reach |delta| = 1: none among 2,000 trials
        self.assertAlmostEqual(sig.approximate_randomization("accuracy", a, b, trials=2000)["p"], 1 / 2001)

    def test_exact_permutation_distribution_by_hand(self):
        # per-example differences [1, 1, 0, 0]: |sum| = 2 when the two 1s keep one sign, 8 of 16 swaps
        self.assertEqual(sig.exact_randomization("accuracy", acc([1, 1, 1, 0]), acc([0, 0, 1, 0])), 0.5)
        # differences [1, 1, 1, 1, 0]: all four of one sign, 2 * 2 of 32 swaps
        a, b = acc([1, 1, 1, 1, 0]), acc([0, 0, 0, 0, 0])
        self.assertEqual(sig.exact_randomization("accuracy", a, b), 0.125)
        # the approximate test converges on the exact p (binomial sd at 20,000 trials: 0.0023)
        self.assertAlmostEqual(sig.approximate_randomization("accuracy", a, b, trials=20000)["p"], 0.125, delta=0.01)
        # F1 (not linear in the statistics): sentence 1 right in a only, sentence 2 wrong in both. Swapping
        # sentence 2 changes nothing and swapping sentence 1 exchanges the F1s (0.5 and 0), so all 4 swaps give
        # |difference| 0.5 = the observed one: p = 1.
        fa = np.array([[2, 2, 2], [0, 2, 2]], dtype=float)
        fb = np.array([[0, 2, 2], [0, 2, 2]], dtype=float)
        self.assertEqual(sig.exact_randomization("f1", fa, fb), 1.0)

    def test_seeded_and_deterministic(self):
        rng = np.random.default_rng(3)
        a, b = acc(rng.integers(0, 2, 300)), acc(rng.integers(0, 2, 300))
        self.assertEqual(sig.paired_bootstrap("accuracy", a, b, seed=7), sig.paired_bootstrap("accuracy", a, b, seed=7))
        self.assertEqual(sig.approximate_randomization("accuracy", a, b, trials=300, seed=7),
                         sig.approximate_randomization("accuracy", a, b, trials=300, seed=7))

    def test_bootstrap_interval_holds_the_difference_and_p_falls_with_it(self):
        rng = np.random.default_rng(5)
        base = rng.integers(0, 2, 400)
        better = base.copy()
        better[rng.choice(np.flatnonzero(base == 0), 40, replace=False)] = 1   # +10 points on the same examples
        r = sig.paired_bootstrap("accuracy", acc(better), acc(base), resamples=1000)
        self.assertAlmostEqual(r["delta"], 0.1)
        self.assertLess(r["ci95"][0], 0.1)
        self.assertGreater(r["ci95"][1], 0.1)
        self.assertGreater(r["ci95"][0], 0.0)
        self.assertLess(r["p"], 0.01)

    def test_seeds(self):
        rng = np.random.default_rng(11)
        a, b = acc(rng.integers(0, 2, 200)), acc(rng.integers(0, 2, 200))
        # three copies of one seed are the same system as that seed alone
        one = sig.paired_bootstrap("accuracy", a, b, seed=4)
        three = sig.paired_bootstrap("accuracy", [a, a.copy(), a.copy()], b, seed=4)
        self.assertEqual(one, three)
        # seeds that disagree widen the interval (Clark et al. 2011: the optimizer's variance is counted)
        worse = acc(np.minimum(a[:, 0], rng.integers(0, 2, 200)))
        spread = sig.paired_bootstrap("accuracy", [a, worse], b, seed=4)
        self.assertGreater(spread["ci95"][1] - spread["ci95"][0], one["ci95"][1] - one["ci95"][0])
        self.assertAlmostEqual(spread["delta"], (sig.metric("accuracy", a) + sig.metric("accuracy", worse)) / 2
                               - sig.metric("accuracy", b))


class Welch(unittest.TestCase):
    def test_betainc_closed_forms(self):
        for x in (0.1, 0.5, 0.93):
            self.assertAlmostEqual(sig.betainc(3.0, 1.0, x), x ** 3, places=12)
            self.assertAlmostEqual(sig.betainc(1.0, 2.5, x), 1 - (1 - x) ** 2.5, places=12)

    def test_t_by_hand(self):
        # means 2 and 5, sd 1 each, n = 3: t = -3 / sqrt(2/3), df = 4; two-sided p = 0.021312 (t tables)
        r = sig.welch_t([1, 2, 3], [4, 5, 6])
        self.assertAlmostEqual(r["t"], -3 / math.sqrt(2 / 3))
        self.assertAlmostEqual(r["df"], 4.0)
        self.assertAlmostEqual(r["p"], 0.021312, places=5)
        # df = 1 is Cauchy: p = 1 - (2 / pi) atan |t|
        t = 1.7
        self.assertAlmostEqual(sig.betainc(0.5, 0.5, 1 / (1 + t * t)), 1 - 2 / math.pi * math.atan(t), places=10)

    def test_edges(self):
        self.assertIsNone(sig.welch_t([1.0], [2.0, 3.0]))
        self.assertEqual(sig.welch_t([1, 1], [1, 1])["p"], 1.0)
        self.assertEqual(sig.welch_t([1, 1], [2, 2])["p"], 0.0)
        self.assertEqual(sig.mean_sd([4.0]), (4.0, None))
        m, sd = sig.mean_sd([80.7, 80.4, 82.3])
        self.assertAlmostEqual(m, 81.133333333)
        self.assertAlmostEqual(sd, math.sqrt(((80.7 - m) ** 2 + (80.4 - m) ** 2 + (82.3 - m) ** 2) / 2))


if __name__ == "__main__":
    unittest.main()
