#!/usr/bin/env python3
"""plots/run_files.py's train_rate on hand-made logs: the training speed a results table shows for a run is the
median of its logged training windows over every start and resume, not summary.json's speed of the last
invocation (which counts a SIGSTOP pause inside a step as training time); summary.json's value only when the
log has no window speeds. End to end: the LM table shows the windows' median, not the summary's speed.

Standard library only: run from the repository root, e.g. by ctest, or
    /usr/bin/python3 tests/plots/test_run_files.py
"""
import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_tables import PLOTS, RUNS, run  # noqa: E402

sys.path.insert(0, PLOTS)
from run_files import RunError, train_rate  # noqa: E402


def train(step, units_s):
    return {"split": "train", "step": step, "epoch": 1, "loss": 5.0, "units_s": units_s}


DEV = {"split": "dev", "step": 10, "epoch": 1, "loss": 5.0}


class TrainRate(unittest.TestCase):
    def test_median_of_the_windows(self):
        # a resume's first window (36,000: units from before the resume, clock restarted) and a window holding a
        # pause (13) are outliers the median leaves out; summary.json's last-invocation speed is not used
        logs = [train(1, 1500.0), train(2, 36000.0), train(3, 1600.0), DEV, train(4, 13.0), train(5, 1550.0)]
        self.assertEqual(train_rate("unused", {"train_units_per_s": 1084.0}, logs), 1550.0)
        # an even count: the mean of the middle two
        self.assertEqual(train_rate("unused", {}, [train(1, 100.0), train(2, 300.0), train(3, 200.0),
                                                   train(4, 900.0)]), 250.0)

    def test_summary_when_no_window_speed(self):
        # dev rows, train rows without units_s (an old log) and non-numbers give no window speed
        logs = [DEV, {"split": "train", "step": 1, "loss": 5.0}, train(2, "fast"), train(3, None), train(4, True)]
        self.assertEqual(train_rate("unused", {"train_units_per_s": 740.0}, logs), 740.0)
        self.assertIsNone(train_rate("unused", {}, logs))

    def test_reads_the_run_folder(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "metrics.jsonl"), "w") as f:
                f.write("".join(json.dumps(r) + "\n" for r in (train(1, 10.0), train(2, 30.0), train(3, 20.0), DEV)))
            self.assertEqual(train_rate(d, {"train_units_per_s": 5.0}), 20.0)
            with open(os.path.join(d, "metrics.jsonl"), "a") as f:
                f.write("{broken\n")
            with self.assertRaises(RunError) as e:   # a broken log is the run's problem, named, not a silent 0
                train_rate(d, {"train_units_per_s": 5.0})
            self.assertIn("metrics.jsonl", str(e.exception))
        with tempfile.TemporaryDirectory() as d:   # no log at all: the summary's number
            self.assertEqual(train_rate(d, {"train_units_per_s": 5.0}), 5.0)


class TableShowsTheMedian(unittest.TestCase):
    def test_lm_table(self):
        with tempfile.TemporaryDirectory() as tmp:
            runs = os.path.join(tmp, "runs")
            shutil.copytree(os.path.join(RUNS, "lm_atr_small"), os.path.join(runs, "lm_atr_small"))
            path = os.path.join(runs, "lm_atr_small", "metrics.jsonl")
            with open(path) as f:
                recs = [json.loads(line) for line in f if line.strip()]
            speeds = iter([2000.0, 9.0, 2500.0, 40000.0, 2200.0] * len(recs))
            for r in recs:
                if r.get("split") == "train":
                    r["units_s"] = next(speeds)
            n_train = sum(r.get("split") == "train" for r in recs)
            self.assertGreaterEqual(n_train, 3, "the fixture needs training windows")
            with open(path, "w") as f:
                f.write("".join(json.dumps(r) + "\n" for r in recs))
            expected = train_rate(os.path.join(runs, "lm_atr_small"), {})
            with open(os.path.join(runs, "lm_atr_small", "summary.json")) as f:
                self.assertNotEqual(round(expected), round(json.load(f)["train_units_per_s"]))
            out = os.path.join(tmp, "lm.md")
            run(os.path.join(PLOTS, "lm_table.py"), "--runs", runs, "--out", out)
            with open(out) as f:
                row = next(line for line in f if line.endswith("`lm_atr_small` |\n"))
            self.assertIn(f"| {round(expected):,} |", row)


if __name__ == "__main__":
    unittest.main()
