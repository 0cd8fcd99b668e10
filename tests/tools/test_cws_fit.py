#!/usr/bin/python3
"""tools/cws_fit.py on a hand-made run folder and a stand-in `cws segment` (one word per character): the sample is
lines 1, 1 + N, ... of the training split, its score is computed by hand, the dev F1 comes from summary.json (or
the best dev record of metrics.jsonl while a run trains), and a folder without a model, a failing binary or a
segmentation of other characters is a clear error, not a number."""
import json
import os
import stat
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "cws_fit.py")

# `cws segment RUN --input IN --output OUT --threads 1`: every character its own word (or, with CHANGE set,
# a character replaced, which no scorer may accept)
FAKE = """#!/usr/bin/python3
import os, sys
a = sys.argv
if os.environ.get("FAIL"):
    sys.stderr.write("cws: error: model.best.bin: truncated\\n"); sys.exit(2)
src, dst = a[a.index("--input") + 1], a[a.index("--output") + 1]
with open(src, encoding="utf-8") as f, open(dst, "w", encoding="utf-8") as g:
    for line in f:
        t = line.rstrip("\\n")
        if os.environ.get("CHANGE"):
            t = "x" + t[1:]
        g.write(" ".join(t) + "\\n")
"""


class CwsFit(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        t = self.tmp.name
        self.data = os.path.join(t, "data")
        os.makedirs(self.data)
        # lines 1 and 3 are sampled with --every 2: gold words ab, c, gh (3); predicted a, b, c, g, h (5);
        # right: c (1) -> P 1/5, R 1/3, F1 0.25
        with open(os.path.join(self.data, "train.seg"), "w", encoding="utf-8") as f:
            f.write("ab c\nd ef\ngh\n")
        self.run_dir = os.path.join(t, "run")
        os.makedirs(self.run_dir)
        with open(os.path.join(self.run_dir, "config.resolved.json"), "w", encoding="utf-8") as f:
            json.dump({"data": {"dir": self.data, "train": "train", "dev": "dev", "words": "train_words.txt"}}, f)
        open(os.path.join(self.run_dir, "model.best.bin"), "wb").close()
        self.bin = os.path.join(t, "cws")
        with open(self.bin, "w", encoding="utf-8") as f:
            f.write(FAKE)
        os.chmod(self.bin, os.stat(self.bin).st_mode | stat.S_IEXEC)

    def tearDown(self):
        self.tmp.cleanup()

    def fit(self, *extra, env=None):
        return subprocess.run([sys.executable, TOOL, self.run_dir, "--bin", self.bin, *extra], capture_output=True,
                              text=True, env={**os.environ, **(env or {})})

    def test_sampled_lines_scored_by_hand_beside_the_dev_f1(self):
        with open(os.path.join(self.run_dir, "metrics.jsonl"), "w", encoding="utf-8") as f:
            for rec in ({"split": "train", "epoch": 1, "loss": 1.0}, {"split": "dev", "epoch": 1, "f1": 0.5},
                        {"split": "dev", "epoch": 2, "f1": 0.75}, {"split": "dev", "epoch": 3, "f1": 0.6}):
                f.write(json.dumps(rec) + "\n")
        p = self.fit("--every", "2", "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        r = json.loads(p.stdout)
        self.assertEqual(r["lines"], 2)
        self.assertAlmostEqual(r["train_sample"]["precision"], 1 / 5)
        self.assertAlmostEqual(r["train_sample"]["recall"], 1 / 3)
        self.assertAlmostEqual(r["train_sample"]["f1"], 0.25)
        self.assertEqual(r["train_sample"]["gold_words"], 3)
        # still training: the best dev evaluation so far, and where it came from
        self.assertEqual(r["dev_f1"], 0.75)
        self.assertIn("epoch 2", r["dev_from"])
        # finished: summary.json's dev F1
        with open(os.path.join(self.run_dir, "summary.json"), "w", encoding="utf-8") as f:
            json.dump({"dev": {"f1": 0.7}}, f)
        p = self.fit("--every", "2")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("(2 lines, 3 words): P 20.00 R 33.33 F1 25.00; dev F1 70.00 (summary.json)", p.stdout)
        # every line: the second line adds d, ef (2 gold words, 3 predicted, 1 right: d)
        r = json.loads(self.fit("--every", "1", "--json").stdout)
        self.assertAlmostEqual(r["train_sample"]["f1"], 2 * (2 / 8) * (2 / 5) / (2 / 8 + 2 / 5))

    def test_bad_input_is_an_error_naming_what(self):
        p = self.fit("--every", "0")
        self.assertEqual(p.returncode, 2)
        self.assertIn("--every 0", p.stderr)
        p = self.fit(env={"FAIL": "1"})
        self.assertEqual(p.returncode, 2)
        self.assertIn("segment", p.stderr)
        self.assertIn("model.best.bin: truncated", p.stderr)
        p = self.fit(env={"CHANGE": "1"})
        self.assertEqual(p.returncode, 2)
        self.assertIn("line 1 covers other characters", p.stderr)
        self.assertEqual(p.stdout, "")
        os.remove(os.path.join(self.run_dir, "model.best.bin"))
        p = self.fit()
        self.assertEqual(p.returncode, 2)
        self.assertIn("no model.best.bin", p.stderr)
        p = subprocess.run([sys.executable, TOOL, self.data, "--bin", self.bin], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("config.resolved.json: no such file", p.stderr)


if __name__ == "__main__":
    unittest.main()
