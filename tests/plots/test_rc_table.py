#!/usr/bin/env python3
"""plots/rc_table.py on the rc run folders of tests/plots/fixtures/rc/ (its make_fixtures.py: a real rc run's
layout shrunk to 4 SQuAD dev questions, the scores by hand): EM / F1 means and sds over two seeds, an unseeded run
kept out of the mean, the paired bootstrap calling a cell that is better on every question and not calling two
identical cells, the protocol and reductions read from the configs, a broken run folder reported and left out,
the comparison saying why when neither stats/ nor the prepared dev answers are there, no runs at all, and the
SQuAD column of cells.md.

    /usr/bin/python3 tests/plots/test_rc_table.py     (from anywhere; numpy, as plots/significance.py)
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(ROOT, "tests", "plots", "fixtures", "rc")
RUNS = os.path.join(FIX, "runs")
PLOTS = os.path.join(ROOT, "plots")
sys.path.insert(0, PLOTS)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture_util import copy_runs  # noqa: E402
import cells_table  # noqa: E402
import rc_table  # noqa: E402


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def table(runs, out, root=FIX):
    """rc_table.py over runs into out (data/ looked for under root): (exit status, stdout, stderr, rc.md text)."""
    p = subprocess.run([sys.executable, os.path.join(PLOTS, "rc_table.py"), "--runs", runs, "--out", out,
                        "--root", root], capture_output=True, text=True, timeout=120)
    text = read(out) if os.path.exists(out) else ""
    return p.returncode, p.stdout, p.stderr, text


def line(text, start):
    """The one line of text that starts with `start`."""
    found = [l for l in text.splitlines() if l.startswith(start)]
    if len(found) != 1:
        raise AssertionError(f"{len(found)} lines start with {start!r}:\n{text}")
    return found[0]


class RcTable(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="test_rc_table_")
        cls.out = os.path.join(cls.tmp, "rc.md")
        cls.rc, cls.stdout, cls.stderr, cls.text = table(RUNS, cls.out)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_fixture_scores_are_their_predictions(self):
        # The summaries' hand-computed EM / F1 and the stats/ files equal what the kept predictions give against
        # the fixture's dev answers (plots/rescore.py, the check make rescore runs).
        good = sorted(os.path.join(RUNS, n) for n in os.listdir(RUNS) if n != "rc_squad_atr_s1")
        p = subprocess.run([sys.executable, os.path.join(PLOTS, "rescore.py"), "--root", FIX, *good],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("6 runs re-scored and equal, 0 differ", p.stdout)

    def test_broken_run_reported_and_left_out(self):
        self.assertEqual(self.rc, 0, self.stderr)
        self.assertNotIn("Traceback", self.stderr + self.stdout)
        broken = os.path.join(RUNS, "rc_squad_atr_s1")
        self.assertIn(f"rc_table.py: skipped {broken}: summary.json: broken JSON", self.stderr)
        self.assertNotIn("rc_squad_atr_s1", self.text)
        self.assertNotIn("rc_squad_atr_s1", read(os.path.join(self.tmp, "rc.csv")))
        self.assertIn("(6 runs)", self.stdout)

    def test_two_seeds_mean_and_sd(self):
        # lstm: EM 25 and 50 -> 37.50 ± 25/sqrt(2) = 17.68; F1 57.5 and 61.11 (100 (1 + 4/9 + 1) / 4) -> 59.31
        # ± 3.61/sqrt(2) = 2.55; questions/s: the medians of the windows, 22 (20, 22, 24) and 25 (24, 26) -> 23.5;
        # the same parameters once; the best steps per seed (15,000 and 18,000); the paper's LSTM beside.
        self.assertEqual(line(self.text, "| lstm | 2 |"),
                         "| lstm | 2 | 37.50 ± 17.68 | 59.31 ± 2.55 | 2,543,321 | 23.5 | 18,000 | 15,000 / 18,000 | "
                         "70.46 / 78.98 (2.67M) |")
        self.assertEqual(line(self.text, "| lrn | 1 |"),
                         "| lrn | 1 | 100.00 (1 seed) | 100.00 (1 seed) | 2,101,346 | 31.0 | 18,000 | 12,000 | "
                         "70.11 / 78.83 (2.14M) |")
        with open(os.path.join(self.tmp, "rc.csv"), newline="", encoding="utf-8") as f:
            rows = {r["cell"]: r for r in csv.DictReader(f)}
        self.assertEqual(list(rows), ["gru", "lstm", "lrn", "sru"])   # the suite's cell order
        lstm = rows["lstm"]
        self.assertEqual((lstm["seeds"], lstm["dev_em_mean"], lstm["dev_em_sd"]), ("2", "37.5000", "17.6777"))
        self.assertEqual((lstm["dev_f1_mean"], lstm["dev_f1_sd"]), ("59.3056", "2.5534"))
        self.assertEqual((lstm["paper_em"], lstm["paper_f1"], lstm["paper_params_M"]), ("70.46", "78.98", "2.67"))
        self.assertEqual(lstm["runs"], "rc_squad_lstm_s1 rc_squad_lstm_s2")

    def test_unseeded_run_not_in_the_mean(self):
        # rc_squad_gru answers all four right (F1 100); gru's mean is its seeded run's 49.17 alone.
        self.assertTrue(line(self.text, "| gru | 1 |").startswith("| gru | 1 | 0.00 (1 seed) | 49.17 (1 seed) |"))
        self.assertIn("Not in these means (each is in the per-run table): `rc_squad_gru` (no seed suffix).",
                      self.text)
        self.assertIn("| gru | 100.00 | 100.00 | 50.00 / 50.00 | 2,283,521 |", self.text)   # its per-run row

    def test_better_on_every_question_is_called(self):
        # lrn answers each question right, gru none: every resample of questions favours lrn, so the two-sided
        # p is 2 (1 + 0) / (1000 + 1) = 0.002; EM differs by exactly 100 on every question.
        row = line(self.text, "| gru − lrn |")
        self.assertIn("| -100.00 [-100.00, -100.00] p 0.002 † |", row)
        self.assertIn("| -50.83 [", row)   # 49.17 - 100
        self.assertTrue(row.endswith("p 0.002 † | EM: lrn higher; F1: lrn higher |"), row)
        self.assertTrue(line(self.text, "| lrn − sru |").endswith("EM: lrn higher; F1: lrn higher |"))

    def test_identical_cells_are_not_called(self):
        # gru and sru give the same answers: every resampled difference is 0, p 1.
        self.assertEqual(line(self.text, "| gru − sru |"),
                         "| gru − sru | +0.00 [+0.00, +0.00] p 1.000 | +0.00 [+0.00, +0.00] p 1.000 | "
                         "EM: no difference shown; F1: no difference shown |")

    def test_protocol_and_reductions_from_the_configs(self):
        self.assertIn("Protocol: SQuAD v1.1 dev (official EM / F1); trained on SQuAD v1.0 train rebuilt", self.text)
        self.assertIn("Trained on 82,278 questions of `train.jsonl`", self.text)
        self.assertIn("on the 2 questions of `heldout.jsonl`; reported: the 4 questions of `dev.jsonl`", self.text)
        self.assertIn("GloVe `glove.6B.100d.txt`, `model.word_dim` 100 (R-Net: GloVe 840B 300d); `train.max_steps` "
                      "18,000 (R-Net: 60,000).", self.text)
        self.assertIn("Paired bootstrap over the 4 dev questions", self.text)
        # Another character RNN for lstm: its runs get a section of their own, which says so; none is pooled.
        with tempfile.TemporaryDirectory() as tmp:
            runs = copy_runs(RUNS, tmp)
            for seed in (1, 2):
                path = os.path.join(runs, f"rc_squad_lstm_s{seed}", "config.resolved.json")
                with open(path, encoding="utf-8") as f:
                    cfg = json.load(f)
                cfg["model"]["char_hidden"] = 50
                with open(path, "w", encoding="utf-8") as f:
                    json.dump(cfg, f)
            rc, _, err, text = table(runs, os.path.join(tmp, "rc.md"))
            self.assertEqual(rc, 0, err)
            self.assertIn("## model.char_hidden 100\n", text)
            self.assertIn("## model.char_hidden 50\n", text)
            small = text.split("## model.char_hidden 50\n")[1]
            self.assertIn("`model.char_hidden` 50 (R-Net: 100)", small)
            self.assertIn("| lstm | 2 | 37.50 ± 17.68 |", small)
            self.assertIn("(fewer than two cells have a run in the means: nothing to compare)", small)
            self.assertNotIn("| gru − lstm |", text)

    def test_without_stats_the_predictions_are_rescored_or_the_reason_given(self):
        with tempfile.TemporaryDirectory() as tmp:
            runs = copy_runs(RUNS, tmp)
            shutil.rmtree(os.path.join(runs, "rc_squad_lrn_s1", "stats"))
            # The dev answers prepared (the fixture's data/squad): recomputed, the same table.
            rc, _, err, text = table(runs, os.path.join(tmp, "rc.md"), FIX)
            self.assertEqual(rc, 0, err)
            self.assertEqual(text, self.text)
            # A fresh clone (no data/): the table is still written, the comparisons with lrn say why not.
            rc, _, err, text = table(runs, os.path.join(tmp, "rc.md"), tmp)
            self.assertEqual(rc, 0, err)
            self.assertNotIn("Traceback", err)
            self.assertIn("| lrn | 1 | 100.00 (1 seed) | 100.00 (1 seed) |", text)
            row = line(text, "| gru − lrn |")
            self.assertIn("| – | – | not computed: `rc_squad_lrn_s1` keeps no `stats/test.tsv`", row)
            self.assertIn(os.path.join(tmp, "data", "squad", "dev.jsonl") + " is not prepared", row)
            self.assertEqual(line(text, "| gru − sru |"), line(self.text, "| gru − sru |"))

    def test_no_runs_at_all(self):
        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(os.path.join(tmp, "runs"))
            rc, out, err, text = table(os.path.join(tmp, "runs"), os.path.join(tmp, "rc.md"))
            self.assertEqual((rc, err), (0, ""))
            self.assertIn("(0 runs)", out)
            self.assertIn("No rc run is committed yet", text)
            self.assertIn("| (no finished run committed yet) |", text)
            self.assertIn("LSTM 70.46 / 78.98 (2.67M)", text)   # the paper's numbers still stated
            self.assertEqual(read(os.path.join(tmp, "rc.csv")), ",".join(rc_table.CSV_HEADER) + "\n")

    def test_cells_column(self):
        # cells.md's SQuAD column shows a mean over at least 3 seeded runs, else says why the cell is left out.
        rows = rc_table.load(RUNS, FIX)
        best, left = cells_table.collect([], [], [], [], None, rows)
        self.assertEqual(best, {})
        self.assertEqual(left["lstm"]["rc"], "2 usable seeds (`rc_squad_lstm_s1`, `rc_squad_lstm_s2`), fewer than 3")
        self.assertIn("`rc_squad_gru`: no seed", left["gru"]["rc"])
        with tempfile.TemporaryDirectory() as tmp:
            runs = copy_runs(RUNS, tmp)
            shutil.copytree(os.path.join(runs, "rc_squad_lstm_s2"), os.path.join(runs, "rc_squad_lstm_s3"))
            best, _ = cells_table.collect([], [], [], [], None, rc_table.load(runs, FIX))
            value, source, note = best["lstm"]["rc"]
            self.assertAlmostEqual(value, (57.5 + 2 * 100 * (1 + 4 / 9 + 1) / 4) / 3, places=9)
            self.assertEqual((os.path.basename(source), note), ("rc_squad_lstm_s1", "mean of 3 seeds"))


if __name__ == "__main__":
    unittest.main()
