#!/usr/bin/env python3
"""plots/peers_table.py on a hand-made `speed peers` report: the words/s and ratio cells, each goal's verdict by
the module's rules (met / met on the median / not met; ATR >= 1.3x our LSTM with the ATR > GRU > LSTM order;
60 % of the true peak), the CSV, and a missing or broken report named on stderr with nothing written.

    /usr/bin/python3 tests/plots/test_peers_table.py
"""
import csv
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "plots", "peers_table.py")


def spread(*v):
    s = sorted(v)
    n = len(s)
    med = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    return {"n": n, "median": med, "min": s[0], "max": s[-1]}


def summary(program, cell, shape, train, infer, gflops=None, peak=None):
    s = {"program": program, "cell": cell, "shape": shape, "threads": 1, "train_words_s": spread(*train),
         "infer_words_s": spread(*infer), "peak_rss_mb": spread(100, 102), "train_gflops": spread(1, 1)}
    if peak:
        s.update(fma_peak_gflops=peak, fma_peak_bits=512, peak_fraction=gflops / peak)
    return s


def report():
    return {
        "machine": {"cpu": "Test CPU", "cores": 2, "gemm": "eigen", "allocator": "glibc", "date": "2026-12-05"},
        "config": {"cells": ["lstm", "gru", "atr"], "shapes": [{"name": "small", "embed": 8, "hidden": 8},
                                                             {"name": "medium", "embed": 16, "hidden": 16}],
                   "vocab": 50, "batch": 4, "bptt": 5, "threads": [1]},
        "rounds": 2, "programs": ["twinrnn", "onednn"], "notes": ["pytorch: --torch off; not measured"],
        "runs": [],
        "summary": [
            summary("twinrnn", "lstm", "small", [1000, 1100], [3000, 3100]),
            summary("onednn", "lstm", "small", [900, 950], [3200, 3300]),
            summary("twinrnn", "lstm", "medium", [100, 110], [300, 310], gflops=70, peak=100),
            summary("twinrnn", "gru", "medium", [120, 130], [330, 340], gflops=50, peak=100),
            summary("twinrnn", "atr", "medium", [150, 160], [400, 420], gflops=65, peak=100),
        ],
        "ratios": [
            # small lstm: train above 1 in every round (met), infer below on the median (not met)
            {"peer": "onednn", "cell": "lstm", "shape": "small", "threads": 1,
             "train": spread(1.05, 1.2), "infer": spread(0.9, 0.95)},
            # small gru: the median at 1.0 but one round below (met on the median)
            {"peer": "onednn", "cell": "gru", "shape": "small", "threads": 1,
             "train": spread(0.98, 1.04), "infer": spread(1.0, 1.01)},
        ],
    }


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


class PeersTable(unittest.TestCase):
    def run_script(self, tmp, rep_obj=None, text=None):
        path = os.path.join(tmp, "peers.json")
        if rep_obj is not None or text is not None:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text if text is not None else json.dumps(rep_obj))
        out = os.path.join(tmp, "speed_peers.md")
        p = subprocess.run([sys.executable, SCRIPT, "--peers", path, "--out", out], capture_output=True, text=True,
                           timeout=60)
        return p, out

    def test_cells_and_verdicts(self):
        with tempfile.TemporaryDirectory() as tmp:
            p, out = self.run_script(tmp, report())
            self.assertEqual(p.returncode, 0, p.stderr)
            md = read(out)
            self.assertIn("| lstm | training | 1,050 (1,000–1,100) | 925 (900–950) | 1.12 (1.05–1.20) | 101 |", md)
            self.assertIn("| our LSTM >= oneDNN's (train) | small, 1 thr. | 1.12 (1.05–1.20) | met |", md)
            self.assertIn("| our LSTM >= oneDNN's (infer) | small, 1 thr. | 0.93 (0.90–0.95) | not met |", md)
            self.assertIn("| our GRU >= oneDNN's (train) | small, 1 thr. | 1.01 (0.98–1.04) | met on the median |", md)
            # ATR / LSTM medians at medium: 155 / 105 = 1.48 (met), 410 / 305 = 1.34 (met); GRU between: kept
            self.assertIn("| ATR >= 1.3x our LSTM, medium (train) | 1 thr. | 1.48x (ATR > GRU > LSTM: kept) | met |", md)
            self.assertIn("| ATR >= 1.3x our LSTM, medium (infer) | 1 thr. | 1.34x (ATR > GRU > LSTM: kept) | met |", md)
            self.assertIn("| medium training >= 60 % of the true peak | lstm, 1 thr. | 70.0 % of 100.0 GFLOP/s (512-bit) | met |", md)
            self.assertIn("| medium training >= 60 % of the true peak | gru, 1 thr. | 50.0 % of 100.0 GFLOP/s (512-bit) | not met |", md)
            self.assertIn("Note: pytorch: --torch off; not measured.", md)
            with open(os.path.splitext(out)[0] + ".csv", newline="", encoding="utf-8") as f:
                rows = list(csv.DictReader(f))
            self.assertEqual(len(rows), 5)
            self.assertEqual(float(rows[1]["train_median"]), 925.0)

    def test_atr_below_target_and_order_broken(self):
        rep = report()
        rep["summary"][4] = summary("twinrnn", "atr", "medium", [120, 124], [310, 320])   # below GRU, 1.16x
        with tempfile.TemporaryDirectory() as tmp:
            p, out = self.run_script(tmp, rep)
            md = read(out)
            self.assertIn("| ATR >= 1.3x our LSTM, medium (train) | 1 thr. | 1.16x (ATR > GRU > LSTM: not kept) | not met |", md)

    def test_own_process_peak_beside_the_verdict(self):
        # GRU's rounds measured 48 of 80, 45 of 100 and 57 of 95 (fractions 0.60, 0.45, 0.60: median 0.60, the
        # middle of three); a failed run and another cell's run are not counted. The verdict keeps the stated
        # rule (50 % of the summary's peak): not met.
        rep = report()
        run = lambda cell, g, peak, ok=True: {"program": "twinrnn", "cell": cell, "shape": "medium", "threads": 1,
                                              "ok": ok, "train_gflops": g, "fma_peak_gflops": peak}
        rep["runs"] = [run("gru", 48, 80), run("gru", 45, 100), run("gru", 57, 95), run("gru", 99, 100, ok=False),
                       run("lstm", 10, 100)]
        with tempfile.TemporaryDirectory() as tmp:
            p, out = self.run_script(tmp, rep)
            md = read(out)
            self.assertIn("| medium training >= 60 % of the true peak | gru, 1 thr. | 50.0 % of 100.0 GFLOP/s (512-bit); "
                          "of each process's own peak: 60.0 % (median) | not met |", md)
            self.assertIn("| lstm, 1 thr. | 70.0 % of 100.0 GFLOP/s (512-bit); of each process's own peak: 10.0 % (median) | met |", md)
            self.assertIn("| atr, 1 thr. | 65.0 % of 100.0 GFLOP/s (512-bit) | met |", md)

    def test_missing_and_broken_reports_write_nothing(self):
        with tempfile.TemporaryDirectory() as tmp:
            p, out = self.run_script(tmp)
            self.assertEqual(p.returncode, 0)
            self.assertIn("peers.json", p.stderr)
            self.assertFalse(os.path.exists(out))
            bad = report()
            del bad["ratios"]
            p, out = self.run_script(tmp, bad)
            self.assertIn("'ratios'", p.stderr)
            self.assertNotIn("Traceback", p.stderr)
            self.assertFalse(os.path.exists(out))
            p, out = self.run_script(tmp, text="{not json")
            self.assertNotIn("Traceback", p.stderr)
            self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
