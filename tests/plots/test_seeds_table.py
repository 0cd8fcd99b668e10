#!/usr/bin/env python3
"""plots/seeds_table.py on hand-made seeded run folders: grouping by <run>_s<seed>, mean ± sd and min–max,
a clear difference marked, a one-seed cell said so, a run without stats shown without a test.
/usr/bin/python3 tests/plots/test_seeds_table.py
"""
import json
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "plots"))
import seeds_table  # noqa: E402


def run(runs, name, acc, correct):
    d = os.path.join(runs, name)
    os.makedirs(os.path.join(d, "stats"))
    with open(os.path.join(d, "summary.json"), "w") as f:
        json.dump({"test": {"accuracy": acc}}, f)
    if correct is not None:
        with open(os.path.join(d, "stats", "test.tsv"), "w") as f:
            f.write("correct\n" + "".join(f"{c}\n" for c in correct))


class SeedsTable(unittest.TestCase):
    def test_table_by_hand(self):
        with tempfile.TemporaryDirectory() as tmp:
            runs = os.path.join(tmp, "runs")
            # lstm right on 90 / 91 of 100 examples, atr on 50 / 52 (the same first ones): a clear difference
            run(runs, "classify_sst2_lstm_s1", 0.90, [1] * 90 + [0] * 10)
            run(runs, "classify_sst2_lstm_s2", 0.91, [1] * 91 + [0] * 9)
            run(runs, "classify_sst2_atr_s1", 0.50, [1] * 50 + [0] * 50)
            run(runs, "classify_sst2_atr_s2", 0.52, [1] * 52 + [0] * 48)
            run(runs, "classify_sst2_gru_s7", 0.60, None)        # no stats: no test
            run(runs, "classify_sst2_lstm", 0.99, [1] * 100)     # not seeded: not in this table
            data = seeds_table.load(runs)
            self.assertEqual(sorted(data["sst2"]), ["atr", "gru", "lstm"])
            self.assertEqual([r[0] for r in data["sst2"]["lstm"]], [1, 2])
            lines, rows = seeds_table.build(data, tmp)
            text = "\n".join(lines)
            self.assertIn("| **lstm** | 90.50 ± 0.71 (2) | 90.00–91.00 | 1, 2 | (best) | (LSTM) |", text)
            atr = next(l for l in lines if l.startswith("| atr "))
            self.assertIn("51.00 ± 1.41 (2)", atr)
            self.assertIn("-39.50 [", atr)
            self.assertIn("†", atr)
            self.assertIn("Welch p 0.004", atr)   # t -35.3 on 1.47 df (0.50, 0.52 against 0.90, 0.91)
            gru = next(l for l in lines if l.startswith("| gru "))
            self.assertIn("60.00 (one seed)", gru)
            self.assertIn("| – | – |", gru)
            self.assertIn("(no seeded runs committed yet)", text)   # the other protocols
            csv_atr = next(r for r in rows if r[1] == "atr")
            self.assertAlmostEqual(float(csv_atr[8]), -39.5)
            self.assertLess(float(csv_atr[11]), 0.05)

    def test_one_seed_per_cell_is_tested_over_examples_only(self):
        with tempfile.TemporaryDirectory() as tmp:
            runs = os.path.join(tmp, "runs")

            def lm(name, ppl, logprob_per_token):
                d = os.path.join(runs, name)
                os.makedirs(os.path.join(d, "stats"))
                with open(os.path.join(d, "summary.json"), "w") as f:
                    json.dump({"test": {"ppl": ppl}}, f)
                with open(os.path.join(d, "stats", "test.tsv"), "w") as f:
                    # 40 sentences of 5..14 tokens; the per-token log-probability differs a little by sentence
                    f.write("logprob\ttokens\n" + "".join(
                        f"{(logprob_per_token + 0.01 * (k % 3)) * (5 + k % 10)}\t{5 + k % 10}\n" for k in range(40)))

            lm("lm_lstm_atr_authors_s1234", 55.0, -4.0)
            lm("lm_atr_atr_authors_s1234", 90.0, -4.5)      # exp(0.5) times LSTM's perplexity on every sentence
            lm("lm_atr_tanh_atr_authors_s1234", 91.0, -4.5)
            lm("lm_atr_atr_authors_pytorch_s1", 80.0, -4.4)  # another recipe: not in this protocol
            data = seeds_table.load(runs)
            self.assertEqual(sorted(data["ptb_tf"]), ["atr", "atr_tanh", "lstm"])
            lines, _ = seeds_table.build(data, tmp)
            atr = next(l for l in lines if l.startswith("| atr |"))
            self.assertIn("90.0 (one seed)", atr)
            self.assertIn("†", atr)              # every resampled sentence says so: a clear difference
            self.assertNotIn("Welch", atr)       # one seed per side: no test over seeds
            self.assertIn("One seed per cell", "\n".join(lines))

    def test_p_values_below_the_printed_resolution_read_less_than(self):
        self.assertEqual(seeds_table.fmt_p(0.148), "0.148")
        self.assertEqual(seeds_table.fmt_p(0.0005), "0.001")
        self.assertEqual(seeds_table.fmt_p(0.0004), "< 0.001")
        self.assertEqual(seeds_table.fmt_p(0.0), "< 0.001")
        c = {"boot": {"delta": 0.218, "ci95": [0.194, 0.239], "p": 0.002}, "welch": {"t": 30.0, "df": 3.9, "p": 2e-6}}
        self.assertEqual(seeds_table.fmt_cmp(c, 100, 1), "+21.8 [+19.4, +23.9] p 0.002 †, Welch p < 0.001")

    def test_one_test_per_pair_in_either_direction(self):
        # seeds.md gave NMT ATR-LSTM p 0.016 in one row and 0.012 in the other (SICK 0.791 and 0.755): two
        # bootstraps of one pair. Now A against B and B against A are one test: the same p, the interval mirrored.
        import numpy as np
        rng = np.random.Generator(np.random.PCG64(7))
        with tempfile.TemporaryDirectory() as tmp:
            runs = os.path.join(tmp, "runs")
            for cell, p in (("gru", 0.74), ("lstm", 0.73)):
                for seed in (1, 2, 1234):
                    correct = (rng.random(400) < p + 0.01 * seed % 3).astype(int).tolist()
                    run(runs, f"snli_sick_cond_{cell}_s{seed}", sum(correct) / 400, correct)
            data = seeds_table.load(runs)
            g, l = data["sick"]["gru"], data["sick"]["lstm"]
            ab, ba = seeds_table.compare("accuracy", g, l), seeds_table.compare("accuracy", l, g)
            self.assertEqual(ab["boot"]["p"], ba["boot"]["p"])
            self.assertAlmostEqual(ab["boot"]["delta"], -ba["boot"]["delta"])
            self.assertEqual(ab["boot"]["ci95"], tuple(-x for x in reversed(ba["boot"]["ci95"])))
            self.assertEqual(ab["welch"]["p"], ba["welch"]["p"])
            # the table's two rows of the pair (best against LSTM, LSTM against best) quote the one test
            lines, rows = seeds_table.build(data, tmp)
            best = next(r for r in rows if r[8] == "")    # the best cell has no Δ best
            other = next(r for r in rows if r[8] != "")
            self.assertEqual(best[16], other[11])           # p_lstm_bootstrap of one = p_best_bootstrap of the other
            self.assertEqual(float(best[13]), -float(other[8]))

    def test_computed_once(self):
        calls = []
        real = seeds_table.sig.paired_bootstrap

        def counting(*a, **kw):
            calls.append(1)
            return real(*a, **kw)
        with tempfile.TemporaryDirectory() as tmp:
            runs = os.path.join(tmp, "runs")
            run(runs, "classify_sst2_lstm_s1", 0.9, [1] * 9 + [0])
            run(runs, "classify_sst2_atr_s1", 0.5, [1] * 5 + [0] * 5)
            data = seeds_table.load(runs)
            seeds_table.sig.paired_bootstrap = counting
            try:
                for _ in range(3):
                    seeds_table.compare("accuracy", data["sst2"]["atr"], data["sst2"]["lstm"])
                    seeds_table.compare("accuracy", data["sst2"]["lstm"], data["sst2"]["atr"])
                seeds_table.build(data, tmp)
            finally:
                seeds_table.sig.paired_bootstrap = real
        self.assertEqual(len(calls), 1)

    def test_dagger_only_below_0_05_as_printed(self):
        # seeds.md gave † at a printed p 0.050 against its own p < 0.05 rule
        c = lambda p: {"boot": {"delta": -0.0297, "ci95": [-0.067, -0.0009], "p": p}, "welch": None}
        self.assertEqual(seeds_table.fmt_cmp(c(0.04995), 100, 2), "-2.97 [-6.70, -0.09] p 0.050")
        self.assertEqual(seeds_table.fmt_cmp(c(0.0494), 100, 2), "-2.97 [-6.70, -0.09] p 0.049 †")
        self.assertFalse(seeds_table.significant(0.0500))
        self.assertFalse(seeds_table.significant(0.04995))
        self.assertTrue(seeds_table.significant(0.04949))
        self.assertTrue(seeds_table.significant(0.0001))

    def test_a_diverged_run_is_left_out_and_named(self):
        with tempfile.TemporaryDirectory() as tmp:
            runs = os.path.join(tmp, "runs")
            run(runs, "classify_sst2_lstm_s1", 0.90, [1] * 90 + [0] * 10)
            run(runs, "classify_sst2_lstm_s2", 0.30, [1] * 30 + [0] * 70)
            with open(os.path.join(runs, "classify_sst2_lstm_s2", "summary.json"), "w") as f:
                json.dump({"test": {"accuracy": 0.30}, "stop_reason": "non_finite"}, f)
            # an LM run whose dev perplexity more than doubled over its best: diverged too
            d = os.path.join(runs, "lm_lstm_small_s1")
            os.makedirs(os.path.join(d, "stats"))
            with open(os.path.join(d, "summary.json"), "w") as f:
                json.dump({"test": {"ppl": 130.0}, "stop_reason": "max_epochs"}, f)
            with open(os.path.join(d, "metrics.jsonl"), "w") as f:
                f.write("".join(json.dumps({"split": "dev", "epoch": e, "ppl": p}) + "\n"
                                for e, p in ((1, 300.0), (2, 900.0), (3, 150.0))))
            with open(os.path.join(d, "stats", "test.tsv"), "w") as f:
                f.write("logprob\ttokens\n-50.0\t10\n")
            data = seeds_table.load(runs)
            self.assertEqual([r[0] for r in data["sst2"]["lstm"]], [1])
            self.assertNotIn("ptb", data)
            text = "\n".join(seeds_table.build(data, tmp)[0])
            self.assertIn("| **lstm** | 90.00 (one seed) |", text)
            self.assertIn("Left out (diverged, so not a draw of the recipe): [`classify_sst2_lstm_s2`]("
                          "runs/classify_sst2_lstm_s2): training stopped on a non-finite loss", text)
            self.assertIn("[`lm_lstm_small_s1`](runs/lm_lstm_small_s1): dev perplexity 900 after epoch 2, more than "
                          "twice its best before (300).", text)


if __name__ == "__main__":
    unittest.main()
