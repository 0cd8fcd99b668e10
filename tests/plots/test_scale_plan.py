#!/usr/bin/env python3
"""plots/scale_plan.py: the data-parallel step model on hand-computed cases, and the script on a hand-made
bench JSON (the plan's table) and on bad input (a one-line error naming the file, exit 2, nothing written).
Standard library only: /usr/bin/python3 tests/plots/test_scale_plan.py
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "plots"))
import scale_plan  # noqa: E402


class StepModel(unittest.TestCase):
    # One node: 100 tokens/s, 1,000 tokens per step (10 s), 1e9 bytes per step, 1e9 bytes/s (8 Gbit/s).
    ARGS = (100.0, 1000.0, 1e9, 1e9)

    def test_one_node_does_not_communicate(self):
        self.assertEqual(scale_plan.step_seconds(1, *self.ARGS), (10.0, 0.0))
        self.assertAlmostEqual(scale_plan.throughput(1, *self.ARGS), 100.0)

    def test_ring_allreduce_time_and_throughput(self):
        # N = 2: 2 * 1/2 * 1e9 / 1e9 = 1 s; throughput 2 * 1000 / 11 s.
        self.assertEqual(scale_plan.step_seconds(2, *self.ARGS), (10.0, 1.0))
        self.assertAlmostEqual(scale_plan.throughput(2, *self.ARGS), 2000.0 / 11.0)
        # N = 4: 2 * 3/4 = 1.5 s; 4000 / 11.5.
        self.assertAlmostEqual(scale_plan.throughput(4, *self.ARGS), 4000.0 / 11.5)

    def test_smallest_node_count_for_a_deadline(self):
        day = 86400.0
        self.assertEqual(scale_plan.nodes_for(100.0 * day, day, *self.ARGS), 1)
        self.assertEqual(scale_plan.nodes_for(100.0 * day + 1, day, *self.ARGS), 2)
        self.assertEqual(scale_plan.nodes_for(2000.0 / 11.0 * day, day, *self.ARGS), 2)
        self.assertEqual(scale_plan.nodes_for(2000.0 / 11.0 * day + 1, day, *self.ARGS), 3)

    def test_unreachable_deadline_is_none(self):
        # The throughput tends to N * 1000 / 12 but MAX_NODES caps the search.
        self.assertIsNone(scale_plan.nodes_for(1e30, 1.0, *self.ARGS))


class Script(unittest.TestCase):
    def run_script(self, bench, *args):
        out = os.path.join(self.tmp.name, "plan.md")
        p = subprocess.run([sys.executable, os.path.join(ROOT, "plots", "scale_plan.py"), "--bench", bench,
                            "--out", out, *args], capture_output=True, text=True)
        return p, out

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def test_plan_table_from_a_bench_file(self):
        exp = os.path.join(self.tmp.name, "exp.json")
        with open(exp, "w") as f:
            json.dump({"model": {"embed": 10}}, f)
        bench = os.path.join(self.tmp.name, "bench.json")
        row = {"cell": "atr", "params": 4000, "train_tokens_s": 100.0, "train_tokens_per_step": 1000.0,
               "allreduce_bytes_per_step": 1e9, "src_vocab": 100, "tgt_vocab": 100}
        with open(bench, "w") as f:
            json.dump({"experiment": exp, "command": "build/bin/speed nmt x", "date": "d", "threads": 2,
                       "shaped_corpus": {"mean_words": 9}, "rows": [row]}, f)
        # One pass: 864,000 pairs x 10 tokens = 8.64M tokens = 100 tokens/s for a day: one node.
        p, out = self.run_script(bench, "--pairs", "864000", "--gbits", "8")
        self.assertEqual(p.returncode, 0, p.stderr)
        text = open(out).read()
        self.assertIn("**1.0 days on one node**", text)
        self.assertIn("| 8 Gbit/s | 0.00 | **1** | 100 | 0% |", text)
        self.assertIn("50% of the bytes are the two embeddings (200 rows x 10)", text)
        # Twice the data (200 tokens/s): two nodes make 2000 / 11 s = 182, so three: 2 * 2/3 = 1.33 s of ring
        # allreduce per 10 s step, 3000 / 11.33 = 265 tokens/s, 12 % of the step.
        p, out = self.run_script(bench, "--pairs", "1728000", "--gbits", "8")
        self.assertIn("| 8 Gbit/s | 1.33 | **3** | 265 | 12% |", open(out).read())

    def test_bad_bench_file_is_one_line_naming_it(self):
        bad = os.path.join(self.tmp.name, "bad.json")
        with open(bad, "w") as f:
            f.write('{"rows": [{"cell": "atr", "train_tokens_s": 0}]}')
        for bench in (bad, os.path.join(self.tmp.name, "missing.json")):
            p, out = self.run_script(bench)
            self.assertEqual(p.returncode, 2)
            self.assertIn(bench, p.stderr)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
            self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
