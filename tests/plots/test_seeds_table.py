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


if __name__ == "__main__":
    unittest.main()
