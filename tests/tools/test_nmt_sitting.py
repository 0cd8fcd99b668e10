#!/usr/bin/env python3
"""tools/nmt_sitting.py with a stand-in `speed` (a script writing `speed nmt`-shaped reports whose rates depend
on the cell and how often it ran): the order of the cells reversed every other round, a process per run, the
medians with min-max, the ratios to the LSTM paired by round, the CSV with `speed nmt`'s columns, an earlier
sitting's runs refused, a failing run named with its log, and bad arguments named.

    /usr/bin/python3 tests/tools/test_nmt_sitting.py
"""
import csv
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "nmt_sitting.py")

# The stand-in: `speed nmt EXP --cells C ... --out STEM`; the k-th run of a cell reports train tokens/s
# BASE[C] + 10 (k - 1) and rows/s at max length twice that; a cell named "boom" fails.
FAKE = r'''#!/usr/bin/env python3
import json, os, sys
a = sys.argv
cell, out = a[a.index("--cells") + 1], a[a.index("--out") + 1]
if cell == "boom":
    print("fake: the model would not build"); sys.exit(3)
count = os.path.join(os.path.dirname(out), "..", "count_" + cell)
k = int(open(count).read()) + 1 if os.path.exists(count) else 1
open(count, "w").write(str(k))
base = {"atr": 100, "lstm": 50, "gru": 80}[cell]
row = {"cell": cell, "params": 1000, "train_tokens_s": base + 10 * (k - 1), "decode_tokens_s_beam1": 7,
       "decode_rows_s_fixed_beam1": 2 * (base + 10 * (k - 1)), "decode_tokens_s_beam10": 5,
       "decode_rows_s_fixed_beam10": 3}
json.dump({"date": "2026-12-06T02:0%dZ" % k, "machine": {"cpu": "Fake CPU"}, "rows": [row]}, open(out + ".json", "w"))
open(out + ".md", "w").write("x")
print("fake run", cell, k)
'''


def run(*args):
    p = subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


class NmtSitting(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.bin = os.path.join(self.dir, "speed")
        with open(self.bin, "w") as f:
            f.write(FAKE)
        os.chmod(self.bin, 0o755)
        self.exp = os.path.join(self.dir, "exp.json")
        with open(self.exp, "w") as f:
            f.write("{}")
        self.out = os.path.join(self.dir, "out", "nmt")
        os.makedirs(os.path.dirname(self.out))

    def tearDown(self):
        self.tmp.cleanup()

    def sitting(self, cells="atr,lstm", rounds="4"):
        return run(self.exp, "--cells", cells, "--rounds", rounds, "--out", self.out, "--bin", self.bin)

    def test_order_medians_and_paired_ratios(self):
        rc, _, err = self.sitting()
        self.assertEqual(rc, 0, err)
        with open(self.out + ".json") as f:
            doc = json.load(f)
        self.assertEqual([(r["round"], r["cell"], r["position"]) for r in doc["runs"]],
                         [(1, "atr", 1), (1, "lstm", 2), (2, "lstm", 1), (2, "atr", 2),
                          (3, "atr", 1), (3, "lstm", 2), (4, "lstm", 1), (4, "atr", 2)])
        self.assertTrue(all(r["peak_rss_mb"] > 0 and r["wall_s"] > 0 for r in doc["runs"]))
        atr = doc["rows"][0]
        # atr's runs: 100, 110, 120, 130 -> median 115 (min 100, max 130); rows/s twice that
        self.assertEqual((atr["train_tokens_s"], atr["spread"]["train_tokens_s"]),
                         (115, {"min": 100, "max": 130, "n": 4}))
        self.assertEqual(atr["decode_rows_s_fixed_beam1"], 230)
        self.assertEqual((atr["params"], atr["decode_tokens_s_beam1"]), (1000, 7))   # constants kept as they are
        self.assertEqual((doc["date"], doc["end"]), ("2026-12-06T02:01Z", "2026-12-06T02:04Z"))
        md = open(self.out + ".md").read()
        self.assertIn("| atr | 1,000 | 115 (100–130) | 7 (7–7) | 230 (200–260) |", md)
        # paired by round: 100/50, 110/60, 120/70, 130/80 -> 2.00, 1.83, 1.71, 1.62; median 1.77
        self.assertIn("| atr / lstm | 1.77 (1.62–2.00) |", md)
        with open(self.out + ".csv", newline="") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([r["cell"] for r in rows], ["atr", "lstm"])
        self.assertEqual(float(rows[1]["train_tokens_s"]), 65.0)
        self.assertNotIn("spread", rows[0])
        self.assertFalse(os.path.exists(os.path.join(self.out + ".runs", "atr_r1.md")))
        self.assertTrue(os.path.exists(os.path.join(self.out + ".runs", "atr_r1.log")))

    def test_earlier_sitting_refused(self):
        rc, _, err = self.sitting(rounds="2")
        self.assertEqual(rc, 0, err)
        before = open(self.out + ".json").read()
        rc, _, err = self.sitting(rounds="2")
        self.assertEqual(rc, 2)
        self.assertIn("nmt.runs: holds an earlier sitting's runs", err)
        self.assertEqual(open(self.out + ".json").read(), before)

    def test_failing_run_named_with_its_log(self):
        rc, _, err = self.sitting(cells="atr,boom", rounds="2")
        self.assertEqual(rc, 1)
        self.assertIn("boom, round 1: exit 3", err)
        self.assertIn("fake: the model would not build", err)
        self.assertFalse(os.path.exists(self.out + ".json"))

    def test_bad_arguments(self):
        for args, what in ((["--cells", "atr,atr"], "--cells atr,atr: expected distinct"),
                           (["--cells", "atr", "--rounds", "0"], "--rounds 0: expected a positive integer"),
                           (["--cells", "atr", "--bin", os.path.join(self.dir, "none")], "not an executable")):
            rc, _, err = run(self.exp, "--out", self.out, "--bin", self.bin, *args)
            self.assertEqual(rc, 2, args)
            self.assertIn(what, err)
        rc, _, err = run(os.path.join(self.dir, "no.json"), "--cells", "atr", "--out", self.out, "--bin", self.bin)
        self.assertEqual(rc, 2)
        self.assertIn("no.json: no such experiment file", err)


if __name__ == "__main__":
    unittest.main()
