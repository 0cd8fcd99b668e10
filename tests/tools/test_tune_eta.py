#!/usr/bin/python3
"""tools/tune_eta.py (the lane-hours a sweep has left, printed by `tune.py status`) on hand-made run folders,
every figure computed by hand:

  space s, study a (3 slots): trials of 600 s and 1,200 s done, one running for 300 s: median 900 s, 600 s left;
           seeds 1, 2 not started: 2 x 900 s (the study's median while a trial is left);
  space s, study b (2 slots): nothing run: the median of the space's finished trials (200, 400, 600, 800,
           1,000, 1,200 s: 700 s), 1,400 s; seeds 2 x 700 s;
  space s, study c (2 slots, done): 0.5 in 400 s and the best, 0.7, in 1,000 s; seed 1 done, seed 2 running for
           1,200 s, past the best trial's time: a tenth of it left, 100 s;
  space s, study d (3 slots, done, lower is better): 0.3 in 200 s, 0.5 in 800 s, and 0.2 diverged (trial.json
           COMPLETE, no summary: done, untimed, and never the best tune.py repeats); seeds: 2 x 200 s, slot 0's
           time (not the median, 500 s);
  space t, study e (1 slot): nothing finished in its space: not estimated.
Trials left: 600 + 1,400 = 2,000 s over 3 trials; seed runs: 1,800 + 1,400 + 100 + 400 = 3,700 s over 7.

/usr/bin/python3 tests/tools/test_tune_eta.py
"""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import tune_eta  # noqa: E402


def put(folder, name, obj):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "w") as f:
        json.dump(obj, f)


def finished(folder, wall, value=None):
    put(folder, "summary.json", {"wall_seconds": wall, "best_dev": {"accuracy": value}})
    put(folder, "trial.json", {"state": "COMPLETE", "value": value})


class Eta(unittest.TestCase):
    def test_hand_computed_sweep(self):
        with tempfile.TemporaryDirectory() as sw:
            finished(os.path.join(sw, "a", "trial_000"), 600, 0.1)
            finished(os.path.join(sw, "a", "trial_001"), 1200, 0.2)
            put(os.path.join(sw, "a", "trial_002"), "progress.json", {"elapsed_s": 300})
            finished(os.path.join(sw, "c", "trial_000"), 400, 0.5)
            finished(os.path.join(sw, "c", "trial_001"), 1000, 0.7)
            finished(os.path.join(sw, "c__seeds", "best_s1"), 990)
            put(os.path.join(sw, "c__seeds", "best_s2"), "progress.json", {"elapsed_s": 1200})
            finished(os.path.join(sw, "d", "trial_000"), 200, 0.3)
            put(os.path.join(sw, "d", "trial_001"), "trial.json", {"state": "COMPLETE", "value": 0.2,
                                                                    "diverged": True})
            finished(os.path.join(sw, "d", "trial_002"), 800, 0.5)
            est = tune_eta.Estimate(sw, [1, 2])
            for space, name, slots, higher in (("s", "a", 3, True), ("s", "b", 2, True), ("s", "c", 2, True),
                                               ("s", "d", 3, False), ("t", "e", 1, True)):
                est.add(space, name, slots, higher)
            lines, total = est.lines()
            self.assertEqual(lines, [
                "median trial 15 min, 1 left: ~0.2 lane-h; seed runs 0 of 2 done, ~0.5 lane-h left",
                "median trial 12 min (its space), 2 left: ~0.4 lane-h; seed runs 0 of 2 done, ~0.4 lane-h left",
                "median trial 12 min; seed runs 1 of 2 done, ~0.0 lane-h left",
                "median trial 8 min; seed runs 0 of 2 done, ~0.1 lane-h left",
                "1 trial left, no finished trial in its space to time it by"])
            self.assertEqual((est.n_trials, est.trials_left), (3, 2000.0))
            self.assertEqual((est.n_seeds, est.seeds_left), (7, 3700.0))
            self.assertEqual(est.unknown, ["e"])
            self.assertEqual(total, "left: 3 trials, ~0.6 lane-hours; 7 seed runs, ~1.0 lane-hours; in all ~1.6 "
                                    "lane-hours (wall: that over the number of lanes); not estimated: e")

    def test_without_seeds_the_seed_folders_found_count(self):
        with tempfile.TemporaryDirectory() as sw:
            finished(os.path.join(sw, "a", "trial_000"), 600, 0.1)
            put(os.path.join(sw, "a__seeds", "best_s7"), "progress.json", {"elapsed_s": 60})
            est = tune_eta.Estimate(sw, [])
            est.add("s", "a", 1, True)
            lines, total = est.lines()
            self.assertEqual(lines, ["median trial 10 min; seed runs 0 of 1 done, ~0.1 lane-h left"])
            self.assertEqual((est.n_seeds, est.seeds_left), (1, 540.0))
            # None started and none asked for: the seed runs are not counted, and the line says so.
            est = tune_eta.Estimate(sw + "/none", [])
            est.add("s", "a", 1, True)
            self.assertIn("seed runs not counted: give --seeds", est.lines()[1])

    def test_unreadable_files_are_not_finished_runs(self):
        with tempfile.TemporaryDirectory() as sw:
            os.makedirs(os.path.join(sw, "a", "trial_000"))
            with open(os.path.join(sw, "a", "trial_000", "summary.json"), "w") as f:
                f.write("{not json")
            put(os.path.join(sw, "a", "trial_001"), "summary.json", {"wall_seconds": "soon"})
            finished(os.path.join(sw, "a", "trial_002"), 120, 0.5)
            est = tune_eta.Estimate(sw, [])
            est.add("s", "a", 3, True)
            lines, _ = est.lines()
            self.assertEqual(lines, ["median trial 2 min, 2 left: ~0.1 lane-h"])
            self.assertEqual(est.trials_left, 240.0)


if __name__ == "__main__":
    unittest.main()
