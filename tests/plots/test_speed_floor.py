#!/usr/bin/env python3
"""plots/speed_floor.py on hand-computed cases and on bad input (one-line error naming the file, exit 2).
Standard library only: /usr/bin/python3 tests/plots/test_speed_floor.py
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "plots"))
import speed_floor  # noqa: E402

# 700 words per step; PyTorch small ATR 1,000 train / 2,000 infer words/s; ours a 0.2 s / 0.1 s step with
# 20 / 5 GFLOP of products on a 100 GFLOP/s peak.
OURS = {"config": {"batch": 20, "bptt": 35}, "records": [
    {"cell": "atr", "shape": "small", "threads": 2, "fma_peak_gflops": 100.0, "train_step_flops": 20e9,
     "infer_step_flops": 5e9, "train_step_s": 0.2, "infer_step_s": 0.1},
    {"cell": "atr", "shape": "small", "threads": 1, "fma_peak_gflops": 50.0, "train_step_flops": 20e9,
     "infer_step_flops": 5e9, "train_step_s": 0.4, "infer_step_s": 0.2},
    {"cell": "lrn", "shape": "medium", "threads": 2, "fma_peak_gflops": 100.0, "train_step_flops": 10e9,
     "infer_step_flops": 4e9, "train_step_s": 0.3, "infer_step_s": 0.1},
    {"cell": "gru", "shape": "medium", "threads": 2, "fma_peak_gflops": 100.0, "train_step_flops": 10e9,
     "infer_step_flops": 4e9, "train_step_s": 0.3, "infer_step_s": 0.1}]}
TORCH = {"records": [{"cell": "atr", "shape": "small", "train_words_s": 1000.0, "infer_words_s": 2000.0},
                     {"cell": "lrn", "shape": "medium", "train_words_s": 700.0, "infer_words_s": 1400.0}]}


class FloorRows(unittest.TestCase):
    def test_hand_computed_rows(self):
        rows = speed_floor.floor_rows(OURS, TORCH, 50.0)
        # Only 2-thread records PyTorch also has: atr small (train, infer), lrn medium (train, infer).
        self.assertEqual([r[:3] for r in rows], [("small", "atr", "train"), ("small", "atr", "infer"),
                                                 ("medium", "lrn", "train"), ("medium", "lrn", "infer")])
        shape, cell, phase, ratio, need, step, at_peak, at_gemm = rows[0]
        self.assertEqual(ratio, 2.0)
        self.assertAlmostEqual(need, 700 / (2.0 * 1000) * 1e3)   # 350 ms
        self.assertAlmostEqual(step, 200.0)
        self.assertAlmostEqual(at_peak, 200.0)                  # 20 GFLOP / 100 GFLOP/s
        self.assertAlmostEqual(at_gemm, 400.0)                  # 20 GFLOP / 50 GFLOP/s
        self.assertAlmostEqual(rows[1][4], 700 / (1.5 * 2000) * 1e3)   # inference 1.5x: 233.3 ms
        self.assertAlmostEqual(rows[1][7], 100.0)
        # LRN medium trains against 1.2x, not 1.5x: 700 / (1.2 * 700) s.
        self.assertEqual(rows[2][3], 1.2)
        self.assertAlmostEqual(rows[2][4], 1e3 / 1.2)

    def test_targets(self):
        self.assertEqual(speed_floor.train_target("small", "lstm"), 2.0)
        self.assertEqual(speed_floor.train_target("medium", "gru"), 1.5)
        self.assertEqual(speed_floor.train_target("medium", "lrn"), 1.2)


class Script(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def write(self, name, obj):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(obj if isinstance(obj, str) else json.dumps(obj))
        return path

    def run_script(self, *args):
        return subprocess.run([sys.executable, os.path.join(ROOT, "plots", "speed_floor.py"), *args],
                              capture_output=True, text=True)

    def test_table(self):
        p = self.run_script(self.write("o.json", OURS), self.write("t.json", TORCH), "--gemm-gflops", "50")
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        self.assertEqual(len(lines), 2 + 4)
        self.assertEqual(lines[2], "| small | atr | train | 2.0x | 350.0 | 200.0 | 200.0 | 400.0 |")

    def test_bad_files_name_the_file(self):
        torch = self.write("t.json", TORCH)
        for name, content in (("missing.json", None), ("broken.json", "{"), ("norecords.json", {"config": {}}),
                              ("nofield.json", {"config": {"batch": 1, "bptt": 1},
                                                "records": [{"cell": "atr", "shape": "small", "threads": 2}]})):
            path = os.path.join(self.tmp.name, name) if content is None else self.write(name, content)
            p = self.run_script(path, torch)
            self.assertEqual(p.returncode, 2, name)
            self.assertIn(name, p.stderr)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)


if __name__ == "__main__":
    unittest.main()
