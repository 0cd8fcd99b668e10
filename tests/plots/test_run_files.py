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
import run_files  # noqa: E402


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


class HowARunCounts(unittest.TestCase):
    """Seeded, diverged, and what a headline mean may hold (issue 51): one definition in run_files for every
    table."""

    def test_seed_of(self):
        self.assertEqual(run_files.seed_of("nmt_atr_s1234"), 1234)
        self.assertEqual(run_files.seed_of("results/runs/lm_lstm_small_s2/"), 2)
        self.assertIsNone(run_files.seed_of("nmt_ran"))
        self.assertIsNone(run_files.seed_of("cws_msr_atr_nll"))

    def test_divergence(self):
        dev = lambda *ppl: [{"split": "dev", "epoch": e + 1, "ppl": p} for e, p in enumerate(ppl)]
        self.assertIsNone(run_files.divergence({"stop_reason": "max_epochs"}, dev(300.0, 200.0, 150.0)))
        self.assertEqual(run_files.divergence({"stop_reason": "non_finite"}),
                         "training stopped on a non-finite loss (stop_reason non_finite)")
        # the LM's notion: dev perplexity more than twice its best so far; the worst such epoch is named
        self.assertEqual(run_files.divergence({}, dev(950.0, 300.0, 5.2e5, 3.3e5, 260.0)),
                         "dev perplexity 5.2e+05 after epoch 3, more than twice its best before (300)")
        self.assertIsNone(run_files.divergence({}, dev(300.0, 599.0)))   # less than twice: no
        self.assertIsNone(run_files.divergence({}, [{"split": "dev", "accuracy": 0.5}]))   # no perplexity logged

    def test_headline_group(self):
        with tempfile.TemporaryDirectory() as tmp:
            def row(name, kept=True, diverged=None):
                d = os.path.join(tmp, name)
                os.makedirs(os.path.join(d, "translations") if kept else d)
                return {"run": name, "dir": d, "diverged": diverged}
            good = [row("nmt_atr_s1"), row("nmt_atr_s2"), row("nmt_atr_s1234")]
            old = row("nmt_atr", kept=False)
            rows, why = run_files.headline_group(good + [old])
            self.assertIsNone(why)
            self.assertEqual([r["run"] for r in rows], ["nmt_atr_s1", "nmt_atr_s2", "nmt_atr_s1234"])  # not nmt_atr
            bad = row("nmt_atr_s3", diverged="dev perplexity 1e+09 after epoch 2")
            rows, why = run_files.headline_group(good[:2] + [bad, old])
            self.assertEqual(why, "2 usable seeds (`nmt_atr_s1`, `nmt_atr_s2`), fewer than 3; `nmt_atr`: no seed, "
                                  "outputs not kept; `nmt_atr_s3`: diverged")
            self.assertEqual(run_files.headline_group([row("nmt_ran", kept=False)])[1],
                             "`nmt_ran`: no seed, outputs not kept")
            self.assertEqual(run_files.headline_group([row("x_s1", kept=False)])[1], "`x_s1`: outputs not kept")

    def test_reproduced_by(self):
        test = {"f1": 0.8248, "precision": 0.82, "decode_chars_s": 4154.8}
        rows = [{"run": "cws_msr_lstm", "seed": 1234, "steps": 350, "test": dict(test)},
                {"run": "cws_msr_lstm_s1234", "seed": 1234, "steps": 350, "test": dict(test, decode_chars_s=9925.2)},
                {"run": "cws_msr_atr", "seed": 1234, "steps": 975, "test": dict(test, f1=0.8431)},
                {"run": "cws_msr_atr_s1234", "seed": 1234, "steps": 975, "test": dict(test, f1=0.8426)},
                {"run": "cws_msr_gru", "seed": 1234, "steps": 700, "test": dict(test)},
                {"run": "cws_msr_gru_s1234", "seed": 1234, "steps": 375, "test": dict(test)},
                {"run": "cws_msr_sru", "seed": 7, "steps": 550, "test": dict(test)},
                {"run": "cws_msr_sru_s1234", "seed": 1234, "steps": 550, "test": dict(test)}]
        # the same numbers but for speed after the same steps: one run; another F1, other steps or another seed: not
        self.assertEqual(run_files.reproduced_by(rows), {"cws_msr_lstm": "cws_msr_lstm_s1234"})

    def test_seed_group_lines_pools_no_diverged_run(self):
        with tempfile.TemporaryDirectory() as tmp:
            rows = [{"run": f"lm_atr_small_s{s}", "dir": os.path.join(tmp, "none"), "test": p, "diverged": d}
                    for s, p, d in ((1, 130.0, None), (2, 132.0, None), (1234, 126.5, "dev perplexity 5e+05"))]
            rows.append({"run": "lm_atr_small", "dir": os.path.join(tmp, "none"), "test": 391.3, "diverged": "x"})
            lines = run_files.seed_group_lines(rows, "test", scale=1.0, digits=1, what="ppl", higher_is_better=False)
        self.assertEqual(lines[2:], [
            "| `lm_atr_small_s1234` (diverged, not pooled) | 1 | 126.5 (one seed) | 126.5–126.5 | 1234 | none |",
            "| `lm_atr_small` | 2 | 131.0 ± 1.4 (2) | 130.0–132.0 | 1, 2 | none |",
            "| `lm_atr_small` (earlier run, no seed suffix; diverged) | 1 | 391.3 (one run) | 391.3–391.3 | – | none |"])
        # nothing seeded: no table over seeds at all (cws.md's PKU section had one of unseeded runs only)
        self.assertEqual(run_files.seed_group_lines([{"run": "cws_pku_atr", "dir": "none", "f1": 0.8}], "f1"), [])


class CellKey(unittest.TestCase):
    def test_a_non_default_initial_bias_is_a_variant_of_its_own(self):
        # the tables key a run by its cell: an SRU with highway_bias (or an LSTM with forget_bias) is not the
        # plain cell, and a bias at its default (or a config written before the option existed) is
        self.assertEqual(run_files.cell_key({"type": "sru", "highway_bias": -2.0}), "sru_hb-2")
        self.assertEqual(run_files.cell_key({"type": "sru", "output": "identity", "highway_bias": -0.5}),
                         "sru_identity_hb-0.5")
        self.assertEqual(run_files.cell_key({"type": "sru", "highway_bias": 0.0}), "sru")
        self.assertEqual(run_files.cell_key({"type": "sru"}), "sru")
        self.assertEqual(run_files.cell_key({"type": "lstm", "forget_bias": 1.0}), "lstm_fb1")

    def test_the_issue_55_options_are_variants_of_their_own(self):
        # minLSTM without normalisation and with the identity candidate is the cell compared with LRN: it must
        # not share a row with the default minLSTM; options at their defaults add nothing
        self.assertEqual(run_files.cell_key({"type": "minlstm", "candidate": "identity", "normalize_gates": False}),
                         "minlstm_identity_nonorm")
        self.assertEqual(run_files.cell_key({"type": "minlstm", "candidate": "default", "normalize_gates": True}),
                         "minlstm")
        self.assertEqual(run_files.cell_key({"type": "mingru", "candidate": "g"}), "mingru")
        self.assertEqual(run_files.cell_key({"type": "mingru", "candidate": "tanh"}), "mingru_tanh")
        self.assertEqual(run_files.cell_key({"type": "qrnn", "filter_width": 2}), "qrnn_w2")
        self.assertEqual(run_files.cell_key({"type": "qrnn", "filter_width": 1}), "qrnn")
        self.assertEqual(run_files.cell_key({"type": "indrnn", "recurrent_bound": 0.5}), "indrnn_rb0.5")
        self.assertEqual(run_files.cell_key({"type": "indrnn", "recurrent_bound": 1.0}), "indrnn")
        self.assertEqual(run_files.cell_key({"type": "hgrn", "forget_lower_bound": 0.6}), "hgrn_lb0.6")
        self.assertEqual(run_files.cell_key({"type": "hgrn", "forget_lower_bound": 0.0}), "hgrn")
        self.assertEqual(run_files.cell_key({"type": "lstm", "kernel": "dnnl"}), "lstm_kernel_dnnl")
        self.assertEqual(run_files.cell_key({"type": "gru", "gru_reset_after": False, "kernel": "dnnl"}),
                         "gru_reset_before_kernel_dnnl")
        self.assertEqual(run_files.cell_key({"type": "lstm", "kernel": "suite"}), "lstm")

    def test_an_option_without_a_short_name_is_named_from_keys_md(self):
        # a model.cell key of experiments/KEYS.md that cell_key does not name: at a value other than its default it
        # keeps the run apart under a generic name, at its default (or absent) it adds nothing
        defaults = run_files.cell_option_defaults()
        self.assertEqual(defaults["highway_bias"], 0.0)
        self.assertEqual(defaults["normalize_gates"], True)
        saved = dict(defaults)
        try:
            defaults.update({"new_scale": 1.0, "new_flag": False, "new_mode": "plain"})
            self.assertEqual(run_files.cell_key({"type": "sru", "new_scale": 0.5}), "sru_new_scale0.5")
            self.assertEqual(run_files.cell_key({"type": "sru", "new_scale": 1.0, "new_flag": False}), "sru")
            self.assertEqual(run_files.cell_key({"type": "atr", "new_flag": True, "new_mode": "fancy"}),
                             "atr_new_flag_new_mode_fancy")
            self.assertEqual(run_files.cell_key({"type": "atr", "init_scale": 0.5, "bias_init": "uniform"}), "atr")
        finally:
            defaults.clear()
            defaults.update(saved)


if __name__ == "__main__":
    unittest.main()
