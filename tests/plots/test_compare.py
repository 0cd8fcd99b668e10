#!/usr/bin/env python3
"""plots/compare.py on hand-made run folders: systems grouped by <run>_s<seed>, mean ± sd worked by hand, a
clear difference marked and a tie not, the --ref column, statistics recomputed from kept predictions and a
prepared reference when stats/ is absent, nothing written, and every refusal (other task, other test set,
a seed given twice, an unknown --ref, not a run folder) exiting 2 with the path named.
/usr/bin/python3 tests/plots/test_compare.py
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "plots", "compare.py")


def make_run(runs, name, acc, correct=None, task="classify", data_dir="data/toy", predictions=None):
    """A finished run folder: summary, resolved config, and stats/test.tsv or predictions/test.txt."""
    d = os.path.join(runs, name)
    os.makedirs(d)
    with open(os.path.join(d, "summary.json"), "w") as f:
        json.dump({"task": task, "test": {"accuracy": acc}}, f)
    with open(os.path.join(d, "config.resolved.json"), "w") as f:
        json.dump({"seed": 1234, "data": {"dir": data_dir, "dev": "dev", "test": "test"}}, f)
    if correct is not None:
        os.makedirs(os.path.join(d, "stats"))
        with open(os.path.join(d, "stats", "test.tsv"), "w") as f:
            f.write("correct\n" + "".join(f"{c}\n" for c in correct))
    if predictions is not None:
        os.makedirs(os.path.join(d, "predictions"))
        with open(os.path.join(d, "predictions", "test.txt"), "w") as f:
            f.write("".join(p + "\n" for p in predictions))
    return d


def compare(*args, cwd):
    return subprocess.run([sys.executable, SCRIPT, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


class Compare(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.runs = os.path.join(self.tmp.name, "runs")

    def tearDown(self):
        self.tmp.cleanup()

    def row(self, out, system):
        return next(line for line in out.splitlines() if line.startswith(f"| {system} ") or
                    line.startswith(f"| **{system}** "))

    def test_table_by_hand_and_nothing_written(self):
        # lstm right on 90 / 91 of 100 examples, atr on 50 / 52 (a clear difference), gru on 90 / 90 (a tie).
        dirs = [make_run(self.runs, "x_lstm_s1", 0.90, [1] * 90 + [0] * 10),
                make_run(self.runs, "x_lstm_s2", 0.91, [1] * 91 + [0] * 9),
                make_run(self.runs, "x_atr_s1", 0.50, [1] * 50 + [0] * 50),
                make_run(self.runs, "x_atr_s2", 0.52, [1] * 52 + [0] * 48),
                make_run(self.runs, "x_gru_s1", 0.90, [0] * 10 + [1] * 90),
                make_run(self.runs, "x_gru_s3", 0.90, [1] * 90 + [0] * 10)]
        before = sorted(os.walk(self.tmp.name))
        p = compare(*dirs, "--ref", "x_lstm", cwd=self.tmp.name)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(sorted(os.walk(self.tmp.name)), before)   # wrote nothing
        self.assertIn("Task classify, test set test of data/toy: accuracy (higher is better), 3 systems, 6 runs.",
                      p.stdout)
        self.assertIn("| **x_lstm** | 90.50 ± 0.71 (2) | 90.00–91.00 | 1, 2 | (best) | (reference) |", p.stdout)
        atr = self.row(p.stdout, "x_atr")
        self.assertIn("| 51.00 ± 1.41 (2) | 50.00–52.00 | 1, 2 | -39.50 [", atr)
        self.assertEqual(atr.count("†"), 2)   # against the best and against the reference (the same system)
        gru = self.row(p.stdout, "x_gru")
        self.assertIn("| 90.00 ± 0.00 (2) | 90.00–90.00 | 1, 3 | -0.50 [", gru)
        self.assertNotIn("†", gru)            # half a point on 100 examples is no difference

    def test_stats_recomputed_from_kept_predictions(self):
        root = os.path.join(self.tmp.name, "root")
        os.makedirs(os.path.join(root, "data", "toy"))
        gold = ["pos"] * 6 + ["neg"] * 4
        with open(os.path.join(root, "data", "toy", "test.txt"), "w") as f:
            f.write("".join(f"{g} some words\n" for g in gold))
        a = make_run(self.runs, "a_s1", 1.0, predictions=gold)                      # 10 / 10
        b = make_run(self.runs, "b_s1", 0.4, predictions=["neg"] * 6 + ["neg"] * 4)  # 4 / 10
        p = compare(a, b, "--root", root, cwd=self.tmp.name)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("no significance", p.stderr)
        self.assertIn("-60.00 [", self.row(p.stdout, "b"))   # tested: the rows came from the predictions
        # Without the reference the means still stand, the test is a dash and the reason names the file.
        p = compare(a, b, "--root", os.path.join(self.tmp.name, "nowhere"), cwd=self.tmp.name)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("| b | 40.00 (one seed) | 40.00–40.00 | 1 | – |", p.stdout)
        self.assertIn("test.txt is not prepared", p.stderr)

    def test_out_file(self):
        a = make_run(self.runs, "a_s1", 0.5, [1, 0])
        out = os.path.join(self.tmp.name, "cmp.md")
        p = compare(a, "--out", out, cwd=self.tmp.name)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out) as f:
            self.assertEqual(f.read(), p.stdout)

    def test_refusals_name_the_path(self):
        a = make_run(self.runs, "a_s1", 0.5, [1, 0])
        other_task = make_run(self.runs, "c_s1", 0.5, [1, 0], task="snli")
        other_test = make_run(self.runs, "d_s1", 0.5, [1, 0], data_dir="data/other")
        twice = make_run(os.path.join(self.tmp.name, "elsewhere"), "a_s1", 0.5, [1, 0])
        cases = [((a, other_task), "runs of different tasks"), ((a, other_test), "different test sets"),
                 ((a, twice), "seed 1 is also"), ((a, "--ref", "zzz"), "--ref zzz: no such system"),
                 ((a, self.tmp.name), os.path.join(self.tmp.name, "summary.json")),
                 ((a, os.path.join(self.tmp.name, "missing")), "no such run folder")]
        for args, message in cases:
            p = compare(*args, cwd=self.tmp.name)
            self.assertEqual(p.returncode, 2, (args, p.stdout, p.stderr))
            self.assertIn(message, p.stderr, args)
            self.assertNotIn("Traceback", p.stderr, args)
            self.assertEqual(p.stdout, "", args)


if __name__ == "__main__":
    unittest.main()
