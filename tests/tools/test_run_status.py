#!/usr/bin/env python3
"""tools/run_status.py on hand-made run folders: epoch, step, best dev and the time left worked out by hand;
a finished run, a run in its first epoch, a max_steps bound, a torn last log line, unreadable folders named
and skipped, the exit statuses, and --queue (a queue's runs in order: started, collected or queued; bad lines named).
/usr/bin/python3 tests/tools/test_run_status.py
"""
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import run_status  # noqa: E402


def run_folder(root, name, train=None, progress=None, metrics=None, summary=None, tail=""):
    d = os.path.join(root, name)
    os.makedirs(d)
    with open(os.path.join(d, "config.resolved.json"), "w") as f:
        json.dump({"train": train or {"max_epochs": 10, "max_steps": 0}}, f)
    if progress is not None:
        with open(os.path.join(d, "progress.json"), "w") as f:
            json.dump(progress, f)
    if summary is not None:
        with open(os.path.join(d, "summary.json"), "w") as f:
            json.dump(summary, f)
    with open(os.path.join(d, "metrics.jsonl"), "w") as f:
        f.write("".join(json.dumps(r) + "\n" for r in (metrics or [])) + tail)
    return d


def train_rows(first_step, last_step, every, seconds_per_step, start=0.0, epoch=3):
    return [{"split": "train", "epoch": epoch, "step": s, "elapsed_s": start + (s - first_step) * seconds_per_step,
             "units_s": 1400.0, "loss": 4.0} for s in range(first_step, last_step + 1, every)]


# Saved in epoch 3 at batch 50, step 250: two epochs of 100 steps before it.
PROGRESS = {"epoch": 3, "batch": 50, "step": 250, "has_best": True, "best": {"name": "ppl", "primary": 120.46}}


class RunStatus(unittest.TestCase):
    def test_in_flight_run_by_hand(self):
        with tempfile.TemporaryDirectory() as tmp:
            # logged up to step 300 at 0.5 s a step; 10 epochs of 100 steps: 700 steps, 350 s, left
            d = run_folder(tmp, "lm_x_s1", progress=PROGRESS, metrics=train_rows(200, 300, 20, 0.5))
            row = run_status.status(d, now=os.path.getmtime(os.path.join(d, "metrics.jsonl")) + 125)
            self.assertEqual(row, {"run": "lm_x_s1", "state": "epoch 3 of 10", "step": "300", "best": "ppl 120.5",
                                   "log": "2m ago", "speed": "1,400/s", "left": "6m"})

    def test_speed_from_the_last_rows_of_one_invocation(self):
        # a resumed run whose clock went on: the slow first rows are outside the last five pairs
        rows = train_rows(0, 100, 20, 5.0) + train_rows(120, 220, 20, 1.0, start=1000.0)
        self.assertAlmostEqual(run_status.seconds_per_step(rows), 1.0)
        # a clock that went back (rows of an earlier invocation logged again) is no pair
        self.assertAlmostEqual(run_status.seconds_per_step(train_rows(0, 40, 20, 2.0)
                                                           + train_rows(20, 40, 20, 2.0, start=0.0)), 2.0)
        self.assertIsNone(run_status.seconds_per_step(train_rows(0, 0, 20, 2.0)))
        # one pair spanning a 40-minute pause among five: the median leaves it out (a mean would say 24.8 s)
        rows = train_rows(0, 60, 20, 1.0) + train_rows(80, 100, 20, 1.0, start=60.0 + 2400.0)
        self.assertAlmostEqual(run_status.seconds_per_step(rows), 1.0)
        # an even count of pairs: the mean of the middle two (1 and 3 s a step)
        rows = [{"step": s, "elapsed_s": t} for s, t in ((0, 0.0), (10, 10.0), (20, 40.0))]
        self.assertAlmostEqual(run_status.seconds_per_step(rows), 2.0)

    def test_first_epoch_max_steps_and_finished(self):
        with tempfile.TemporaryDirectory() as tmp:
            first = run_folder(tmp, "a", progress={"epoch": 1, "batch": 60, "step": 60},
                               metrics=train_rows(20, 60, 20, 0.5, epoch=1))
            self.assertEqual(run_status.status(first)["left"], "–")   # steps per epoch not known yet
            self.assertEqual(run_status.status(first)["best"], "–")
            # max_steps 400 comes before 10 epochs: 100 steps at 0.5 s
            capped = run_folder(tmp, "b", train={"max_epochs": 10, "max_steps": 400}, progress=PROGRESS,
                                metrics=train_rows(200, 300, 20, 0.5))
            self.assertEqual(run_status.status(capped)["left"], "1m")
            done = run_folder(tmp, "c", progress=PROGRESS, metrics=train_rows(200, 300, 20, 0.5),
                              summary={"stop_reason": "early_stop", "dev": {"ppl": 8.1, "bleu": 36.17}})
            row = run_status.status(done)
            self.assertEqual((row["state"], row["best"], row["left"]), ("finished (early_stop)", "bleu 36.17", "0m"))
            self.assertEqual(run_status.fmt_duration(3 * 3600 + 5 * 60 + 10), "3h05m")

    def test_torn_last_line_is_left_out_a_bad_middle_line_is_not(self):
        with tempfile.TemporaryDirectory() as tmp:
            torn = run_folder(tmp, "a", progress=PROGRESS, metrics=train_rows(200, 300, 20, 0.5), tail='{"spl')
            self.assertEqual(run_status.status(torn)["step"], "300")
            bad = run_folder(tmp, "b", progress=PROGRESS, metrics=train_rows(200, 220, 20, 0.5))
            with open(os.path.join(bad, "metrics.jsonl"), "a") as f:
                f.write("not json\n" + json.dumps(train_rows(240, 240, 20, 0.5)[0]) + "\n")
            with self.assertRaises(run_status.RunError) as e:
                run_status.status(bad)
            self.assertIn("metrics.jsonl: line 3 is not JSON", str(e.exception))

    def test_main_skips_unreadable_folders_and_exit_statuses(self):
        with tempfile.TemporaryDirectory() as tmp:
            run_folder(tmp, "good", progress=PROGRESS, metrics=train_rows(200, 300, 20, 0.5))
            broken = run_folder(tmp, "broken", metrics=train_rows(200, 300, 20, 0.5))
            with open(os.path.join(broken, "progress.json"), "w") as f:
                f.write("{")
            os.makedirs(os.path.join(tmp, "not_a_run"))
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                self.assertEqual(run_status.main([tmp]), 0)
            self.assertIn("| `good` | epoch 3 of 10 | 300 |", out.getvalue())
            self.assertNotIn("not_a_run", out.getvalue())
            self.assertIn(f"skipped {broken}: {os.path.join(broken, 'progress.json')}: broken JSON", err.getvalue())
            with contextlib.redirect_stderr(io.StringIO()) as err:
                self.assertEqual(run_status.main([os.path.join(tmp, "not_a_run")]), 1)
                self.assertEqual(run_status.main([os.path.join(tmp, "missing")]), 2)
            self.assertIn("missing: no such folder", err.getvalue())

    def test_queue_runs_in_order_started_collected_queued(self):
        with tempfile.TemporaryDirectory() as tmp:
            queue = os.path.join(tmp, "lane.txt")
            with open(queue, "w") as f:
                f.write("# a comment\n\nlm experiments/lm/gru_x.json --seeds 1234,1\n"
                        "lm experiments/lm/atr_atr_authors.json --seeds 1234 --set train.max_epochs=39\n"
                        "nmt experiments/nmt/not_run_yet.json\n")
            self.assertEqual(run_status.queue_runs(queue), [("lm_gru_x_s1234", 3), ("lm_gru_x_s1", 3),
                                                            ("lm_atr_atr_authors_s1234", 4), ("nmt_not_run_yet", 5)])
            runs = os.path.join(tmp, "runs")
            os.makedirs(runs)
            run_folder(runs, "lm_gru_x_s1234", progress=PROGRESS, metrics=train_rows(200, 300, 20, 0.5))
            run_folder(runs, "unrelated", progress=PROGRESS, metrics=train_rows(200, 300, 20, 0.5))
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.assertEqual(run_status.main(["--queue", queue, runs]), 0)
            lines = out.getvalue().splitlines()[2:]
            self.assertEqual([l.split(" | ")[:3] for l in lines],
                             [["| lane.txt:3", "`lm_gru_x_s1234`", "epoch 3 of 10"],
                              ["| lane.txt:3", "`lm_gru_x_s1`", "queued"],
                              # committed in the repository's results/runs (issue 26's ATR run)
                              ["| lane.txt:4", "`lm_atr_atr_authors_s1234`", "collected (results/runs)"],
                              ["| lane.txt:5", "`nmt_not_run_yet`", "queued"]])

    def test_bad_queue_lines_are_named(self):
        with tempfile.TemporaryDirectory() as tmp:
            for text, why in (("lm\n", "lane.txt:1: expected 'task experiment.json [flags]'"),
                              ("# c\nlm experiments/lm/a.json --seeds\n", "lane.txt:2: --seeds needs a list")):
                queue = os.path.join(tmp, "lane.txt")
                with open(queue, "w") as f:
                    f.write(text)
                err = io.StringIO()
                with contextlib.redirect_stderr(err):
                    self.assertEqual(run_status.main(["--queue", queue, tmp]), 2)
                self.assertIn(why, err.getvalue())
            with contextlib.redirect_stderr(io.StringIO()) as err:
                self.assertEqual(run_status.main(["--queue", queue]), 2)
            self.assertIn("--queue takes one RUNS_DIR", err.getvalue())


if __name__ == "__main__":
    unittest.main()
