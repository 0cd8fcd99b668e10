#!/usr/bin/env python3
"""plots/speed_sitting.py (speed.md from one `speed peers` sitting) on a hand-made sitting: Table 4's rows from
the report's medians with min-max and the medians of the kept run reports (forward / backward / update split),
the ratios to our LSTM, the memory check against a baseline folder (median per configuration, 10 % rule),
a broken run report named and left out, the consumers (speed_table.load_dir, cells.md's speed column, table1.md)
reading the sitting, and the fallback to lm.json when the sitting's report is unusable.

    /usr/bin/python3 tests/plots/test_speed_sitting.py
"""
import contextlib
import csv
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLOTS = os.path.join(ROOT, "plots")
sys.path.insert(0, PLOTS)
import speed_sitting  # noqa: E402
import speed_table  # noqa: E402
import table1_table  # noqa: E402

CELLS = {"lstm": (8, 1000, [1000, 1100], [3000, 3100]), "gru": (6, 900, [1200, 1300], [3300, 3400]),
         "atr": (2, 700, [1500, 1600], [4000, 4200])}
MACHINE = {"cpu": "Test CPU", "cores": 2, "gemm": "eigen", "allocator": "glibc", "date": "2026-12-06T02:00:00Z"}


def spread(*v):
    s = sorted(v)
    n = len(s)
    return {"n": n, "median": s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2, "min": s[0], "max": s[-1]}


def our_report(cell, k):
    wm, params, train, infer = CELLS[cell]
    rec = {"cell": cell, "shape": "small", "threads": 2, "layers": 2, "hidden": 8, "embed": 8, "params": params,
           "weight_matrices": wm, "matrix_transformations": wm, "train_words_s": train[k], "infer_words_s": infer[k],
           "train_gflops": 10.0 + k, "peak_fraction": 0.5, "peak_rss_mb": 100.0 + 4 * k,
           "train_fwd_s": 0.010 + 0.002 * k, "train_bwd_s": 0.020, "train_update_s": 0.001,
           "fma_peak_gflops": 30.0 - k, "fma_peak_256_gflops": 15.0, "fma_peak_bits": 512}
    return {"tool": "twinrnn speed", "machine": dict(MACHINE, date=f"2026-12-06T01:0{k}:00Z"), "records": [rec]}


def sitting(folder):
    """lm_peers.json, lm_peers.runs/ (ours 2 rounds per cell, oneDNN for lstm) and a memory baseline."""
    runs_dir = os.path.join(folder, "lm_peers.runs")
    os.makedirs(runs_dir)
    runs, summary = [], []
    for cell, (wm, params, train, infer) in CELLS.items():
        for k in range(2):
            name = f"twinrnn_{cell}_small_t2_r{k + 1}.json"
            with open(os.path.join(runs_dir, name), "w", encoding="utf-8") as f:
                json.dump(our_report(cell, k), f)
            runs.append({"program": "twinrnn", "cell": cell, "shape": "small", "threads": 2, "round": k + 1,
                         "ok": True, "report": name})
        summary.append({"program": "twinrnn", "cell": cell, "shape": "small", "threads": 2,
                        "train_words_s": spread(*train), "infer_words_s": spread(*infer),
                        "train_gflops": spread(10.0, 11.0), "peak_rss_mb": spread(110.0, 112.0),
                        "fma_peak_gflops": 30.0, "fma_peak_bits": 512, "peak_fraction": 10.5 / 30.0})
    summary.append({"program": "onednn", "cell": "lstm", "shape": "small", "threads": 2,
                    "train_words_s": spread(900, 950), "infer_words_s": spread(2800, 2900),
                    "train_gflops": spread(9.0, 9.5), "peak_rss_mb": spread(90.0, 90.0)})
    rep = {"tool": "twinrnn speed peers", "machine": MACHINE, "rounds": 2, "programs": ["twinrnn", "onednn"],
           "notes": ["pytorch: --torch off; not measured"], "runs": runs, "summary": summary,
           "config": {"cells": list(CELLS), "shapes": [{"name": "small", "embed": 8, "hidden": 8, "layers": 2}],
                      "vocab": 50, "batch": 4, "bptt": 5, "threads": [2]},
           "ratios": [{"peer": "onednn", "cell": "lstm", "shape": "small", "threads": 2,
                       "train": spread(1.05, 1.2), "infer": spread(1.04, 1.1)}]}
    with open(os.path.join(folder, "lm_peers.json"), "w", encoding="utf-8") as f:
        json.dump(rep, f)
    before = os.path.join(folder, "lm_peers_memory_before")
    os.makedirs(before)
    for name, cell, mb in (("lstm_small_t2_r1", "lstm", 90.0), ("lstm_small_t2_r2", "lstm", 94.0),
                           ("gru_small_t2_r1", "gru", 100.0)):
        with open(os.path.join(before, name + ".json"), "w", encoding="utf-8") as f:
            json.dump({"records": [{"cell": cell, "shape": "small", "threads": 2, "peak_rss_mb": mb}]}, f)
    os.makedirs(os.path.join(folder, "lm_peers_memory_why"))
    with open(os.path.join(folder, "lm_peers_memory_why", "README.md"), "w", encoding="utf-8") as f:
        f.write("# why\n")
    with open(os.path.join(folder, "lm_peers_commands.txt"), "w", encoding="utf-8") as f:
        f.write("# the sitting\n./build/bin/speed peers experiments/speed/lm.json --rounds 2\n")
    return rep


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def quietly(fn, *args):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        value = fn(*args)
    return value, err.getvalue()


class SpeedSitting(unittest.TestCase):
    def test_table4_memory_and_consumers(self):
        with tempfile.TemporaryDirectory() as tmp:
            speed = os.path.join(tmp, "speed")
            os.makedirs(speed)
            sitting(speed)
            data, err = quietly(speed_table.load_dir, speed)
            self.assertEqual(err, "")
            self.assertIn("sitting", data)
            out = os.path.join(tmp, "results", "speed.md")
            quietly(speed_table.write, data, out, "")
            md = read(out)
            # lstm: words/s the report's medians (min-max); fwd the median of the runs' own 10 and 12 ms
            self.assertIn("| lstm | 8 / 8 | 1,000 | 2 | 1,050 (1,000–1,100) | 1.00 | 3,050 (3,000–3,100) | 1.00 | "
                          "10.5 | 35.0 | 11.0 / 20.0 / 1.0 | 111 |", md)
            # atr: 1,550 / 1,050 = 1.48 training, 4,100 / 3,050 = 1.34 inference
            self.assertIn("| atr | 2 / 2 | 700 | 2 | 1,550 (1,500–1,600) | 1.48 | 4,100 (4,000–4,200) | 1.34 |", md)
            self.assertIn("ATR : GRU : LSTM training words/s, 2 threads: 1,550 : 1,250 : 1,050 (1.48 : 1.19 : 1.00).",
                          md)
            self.assertIn("`./build/bin/speed peers experiments/speed/lm.json --rounds 2`, 2026-12-06T01:00:00Z to "
                          "2026-12-06T01:01:00Z", md)
            self.assertIn("30.0 GFLOP/s at 2 threads (the 256-bit loop's: 15.0", md)
            # the peers' part holds only the cells a peer has; the goals by peers_table's rules
            self.assertIn("| lstm | training | 1,050 (1,000–1,100) | 925 (900–950) | 1.12 (1.05–1.20) | 111 |", md)
            self.assertNotIn("| atr | training | 1,550", md)
            self.assertIn("| our LSTM >= oneDNN's (train) | small, 2 thr. | 1.12 (1.05–1.20) | met |", md)
            # memory: our runs' own peaks 100 and 104 (median 102) against 90 and 94 (92): 1.109, over 10 %
            self.assertIn("| small | lstm | 2 | 92 | 102 | 1.109 | no |", md)
            self.assertIn("| small | gru | 2 | 100 | 102 | 1.020 | yes |", md)
            self.assertIn("1 of 2 configurations within 10 %; the largest ratio 1.109 (small lstm, 2 thr.)", md)
            self.assertIn("Why not within 10 %: [`../speed/lm_peers_memory_why/`](../speed/lm_peers_memory_why/README.md).",
                          md)
            with open(os.path.join(tmp, "results", "speed.csv"), newline="", encoding="utf-8") as f:
                rows = list(csv.DictReader(f))
            self.assertEqual([r["cell"] for r in rows], ["lstm", "gru", "atr"])
            self.assertEqual((rows[2]["train_words_s"], rows[2]["train_min"], rows[2]["fwd_ms"]), ("1550", "1500", "11.00"))
            with open(os.path.join(tmp, "results", "speed_memory.csv"), newline="", encoding="utf-8") as f:
                self.assertEqual(len(list(csv.DictReader(f))), 2)
            # the consumers: cells.md's speed column and table1.md read the same sitting
            self.assertEqual(speed_table.best_small_2_threads(data["ours"])["atr"]["train_words_s"], 1550)
            t1 = os.path.join(tmp, "results", "table1.md")
            quietly(table1_table.write, data, t1)
            self.assertIn("| atr | 2 | 2 | 2 / 2 | yes |", read(t1))

    def test_broken_run_report_named_and_left_out(self):
        with tempfile.TemporaryDirectory() as tmp:
            sitting(tmp)
            with open(os.path.join(tmp, "lm_peers.runs", "twinrnn_gru_small_t2_r2.json"), "w") as f:
                f.write("{broken")
            data, err = quietly(speed_sitting.load, os.path.join(tmp, "lm_peers.json"))
            self.assertIn("twinrnn_gru_small_t2_r2.json: broken JSON", err)
            gru = [r for r in data["ours"]["records"] if r["cell"] == "gru"][0]
            self.assertEqual((gru["train_fwd_s"], gru["own_peak_rss_mb"]), (0.010, 100.0))   # round 1 alone
            self.assertEqual(gru["train_words_s"], 1250)   # the report's median stands

    def test_unusable_sitting_falls_back_to_lm_json(self):
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "lm_peers.json"), "w") as f:
                f.write("{not json")
            data, err = quietly(speed_table.load_dir, tmp)
            self.assertIn("lm_peers.json", err)
            self.assertIn("lm.json: file missing", err)
            self.assertNotIn("sitting", data)
            self.assertIsNone(data["ours"])

    def test_chart_reads_the_sitting(self):
        import speed_chart   # matplotlib (Agg), as make_figures
        with tempfile.TemporaryDirectory() as tmp:
            sitting(tmp)
            (ours, onednn, torch), err = quietly(speed_chart.sitting_speeds, os.path.join(tmp, "lm_peers.json"))
            self.assertEqual(err, "")
            self.assertEqual((ours[0], ours[2]), (2, ["lstm", "gru", "atr"]))
            self.assertEqual(ours[3][("atr", "small")], (1550, 4100))
            self.assertEqual(onednn[3], {("lstm", "small"): (925, 2850)})
            self.assertIsNone(torch)

    def test_command_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            sitting(tmp)
            out = os.path.join(tmp, "speed.md")
            p = subprocess.run([sys.executable, os.path.join(PLOTS, "speed_table.py"), "--sitting",
                                os.path.join(tmp, "lm_peers.json"), "--out", out], capture_output=True, text=True,
                               timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("## Table 4 on this CPU", read(out))
            p = subprocess.run([sys.executable, os.path.join(PLOTS, "speed_table.py"), "--sitting",
                                os.path.join(tmp, "none.json"), "--out", out + "2"], capture_output=True, text=True,
                               timeout=60)
            self.assertEqual(p.returncode, 1)
            self.assertIn("none.json", p.stderr)
            self.assertNotIn("Traceback", p.stderr)
            self.assertFalse(os.path.exists(out + "2"))


if __name__ == "__main__":
    unittest.main()
