#!/usr/bin/env python3
"""plots/scale_table.py: the scaling table from hand-made kept runs (windows, median ratio, parameters, bytes),
written between scale.md's markers with the rest of the file untouched; bad input is a one-line error naming
the folder or file (exit 2) and leaves scale.md as it was.
Standard library only: /usr/bin/python3 tests/plots/test_scale_table.py
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "plots", "scale_table.py")
sys.path.insert(0, os.path.join(ROOT, "plots"))
import scale_table  # noqa: E402

MD = f"# Scale\n\nprose before\n\n{scale_table.BEGIN}\nold table\n{scale_table.END}\n\nprose after\n"


def make_run(root, name, units, params, task="lm"):
    d = os.path.join(root, name)
    os.makedirs(d)
    with open(os.path.join(d, "metrics.jsonl"), "w") as f:
        for i, u in enumerate(units):
            f.write(json.dumps({"split": "train", "step": 10 * (i + 1), "units_s": u}) + "\n")
        f.write(json.dumps({"split": "dev", "step": 10, "ppl": 900.0}) + "\n")
    with open(os.path.join(d, "params.txt"), "w") as f:
        f.write(f"lm/out/b  [1, 4]  4\ntotal  {params}\n")
    with open(os.path.join(d, "command.txt"), "w") as f:
        f.write(f"build/bin/{task} {name}.json\n")
    cfg = {"train": {}, "decode": {"beam": 10}} if task == "nmt" else {"train": {}}
    with open(os.path.join(d, "config.resolved.json"), "w") as f:
        json.dump(cfg, f)


class ScaleTable(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.runs = os.path.join(self.tmp.name, "runs")
        self.md = os.path.join(self.tmp.name, "scale.md")
        with open(self.md, "w") as f:
            f.write(MD)

    def tearDown(self):
        self.tmp.cleanup()

    def run_script(self):
        return subprocess.run([sys.executable, SCRIPT, "--runs", self.runs, "--md", self.md],
                              capture_output=True, text=True)

    def assert_refused(self, needle, md=MD):
        """Exit 2 with needle on stderr, and the markdown file left as it was (md)."""
        r = self.run_script()
        self.assertEqual(r.returncode, 2)
        self.assertIn(needle, r.stderr)
        self.assertEqual(open(self.md).read(), md)

    def test_table_between_the_markers(self):
        make_run(self.runs, "lm_atr_1x2", [1000.0, 2000.0, 3000.0], 1000)
        make_run(self.runs, "lm_atr_2x1", [1500.0, 1800.0, 1200.0], 1000)
        make_run(self.runs, "nmt_atr_1x2", [100.0, 300.0], 250000, task="nmt")
        make_run(self.runs, "nmt_atr_2x1", [200.0, 200.0], 250000, task="nmt")
        r = self.run_script()
        self.assertEqual(r.returncode, 0, r.stderr)
        text = open(self.md).read()
        self.assertTrue(text.startswith("# Scale\n\nprose before\n\n" + scale_table.BEGIN + "\n"))
        self.assertTrue(text.endswith(scale_table.END + "\n\nprose after\n"))
        self.assertNotIn("old table", text)
        # medians: 2,000 and 1,500 -> 0.75; 4,000 bytes = 0.0 MB at one decimal.
        self.assertIn("| lm_atr | 1,000 / 2,000 / 3,000 | 1,500 / 1,800 / 1,200 | 0.75 | 1,000 | 0.0 MB |", text)
        # medians: 200 and 200 -> 1.00; 250,000 float32 gradients = 1.0 MB.
        self.assertIn("| nmt_atr | 100 / 300 | 200 / 200 | 1.00 | 250,000 | 1.0 MB |", text)
        self.assertIn("target tokens/s per window", text)
        self.assertIn("build/bin/lm lm_atr_1x2.json", text)
        # Idempotent: a second call gives the same bytes.
        self.assertEqual(self.run_script().returncode, 0)
        self.assertEqual(open(self.md).read(), text)

    def test_a_model_without_its_second_layout_is_refused(self):
        make_run(self.runs, "lm_atr_1x2", [1000.0], 1000)
        self.assert_refused("lm_atr has no 2x1 run")

    def test_bad_folder_name_and_bad_files(self):
        make_run(self.runs, "lm_atr_4x4", [1000.0], 1000)
        self.assert_refused("lm_atr_4x4: expected <model>_1x2 or <model>_2x1")
        os.rename(os.path.join(self.runs, "lm_atr_4x4"), os.path.join(self.runs, "lm_atr_1x2"))
        make_run(self.runs, "lm_atr_2x1", [1000.0], 1000)
        with open(os.path.join(self.runs, "lm_atr_2x1", "metrics.jsonl"), "a") as f:
            f.write("{not json\n")
        self.assert_refused("lm_atr_2x1/metrics.jsonl:3: not JSON")

    def test_markdown_without_markers_is_refused(self):
        make_run(self.runs, "lm_atr_1x2", [1000.0], 1000)
        make_run(self.runs, "lm_atr_2x1", [1000.0], 1000)
        with open(self.md, "w") as f:
            f.write("# no markers\n")
        self.assert_refused("expected one", md="# no markers\n")


if __name__ == "__main__":
    unittest.main()
