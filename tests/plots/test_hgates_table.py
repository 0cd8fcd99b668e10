#!/usr/bin/env python3
"""plots/hgates_table.py ("does h_{t-1} in the gates matter?") on hand-made run folders: each side's mean over its
seeded runs, the parameter counts, the difference with - without and its paired test (the same numbers
seeds_table.compare gives, so the table and seeds.md quote one test), diverged runs left out, and the rows of a pair
without runs saying so. Run from the repository root (ctest does), or /usr/bin/python3 tests/plots/test_hgates_table.py
"""
import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_tables import PLOTS  # noqa: E402

sys.path.insert(0, PLOTS)
import hgates_table  # noqa: E402
import seeds_table  # noqa: E402


def make_run(root, name, accuracy_rows, params, stop_reason="early_stop"):
    """A SICK run folder: summary.json with the test accuracy of `accuracy_rows` (0/1 per example) and
    stats/test.tsv holding them."""
    d = os.path.join(root, name)
    os.makedirs(os.path.join(d, "stats"))
    acc = sum(accuracy_rows) / len(accuracy_rows)
    with open(os.path.join(d, "summary.json"), "w", encoding="utf-8") as f:
        json.dump({"test": {"accuracy": acc}, "params": params, "stop_reason": stop_reason}, f)
    with open(os.path.join(d, "stats", "test.tsv"), "w", encoding="utf-8") as f:
        f.write("correct\n" + "".join(f"{x}\n" for x in accuracy_rows))
    return d


class HgatesTable(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="hgates_")
        self.addCleanup(shutil.rmtree, self.root)
        # ATR (with h_{t-1}) right on 8 of 10 and 7 of 10; minGRU at ATR's parameters on 5 and 6 of 10
        make_run(self.root, "snli_sick_cond_atr_s1", [1] * 8 + [0] * 2, 1000)
        make_run(self.root, "snli_sick_cond_atr_s2", [1] * 7 + [0] * 3, 1000)
        make_run(self.root, "snli_sick_cond_mingru_atr_params_s1", [1] * 5 + [0] * 5, 1002)
        make_run(self.root, "snli_sick_cond_mingru_atr_params_s2", [0] * 4 + [1] * 6, 1002)
        make_run(self.root, "snli_sick_cond_mingru_atr_params_s3", [0] * 10, 1002, stop_reason="non_finite")
        make_run(self.root, "snli_sick_cond_atr", [1] * 10, 1000)   # no seed: never pooled

    def test_pair_row_means_params_and_the_one_paired_test(self):
        data = hgates_table.load(self.root)
        self.assertEqual([r[0] for r in data["snli_sick_cond_atr"]], [1, 2])
        self.assertEqual([r[0] for r in data["snli_sick_cond_mingru_atr_params"]], [1, 2])   # s3 diverged
        lines, rows = hgates_table.build(data, self.root)
        row = next(l for l in lines if l.startswith("| SICK") and "`atr`" in l)
        self.assertIn("`atr`: 75.00 ± 7.07 (2)", row)
        self.assertIn("`mingru_atr_params`: 55.00 ± 7.07 (2)", row)
        self.assertIn("| 1,000 / 1,002 |", row)
        want = seeds_table.compare("accuracy", data["snli_sick_cond_atr"], data["snli_sick_cond_mingru_atr_params"])
        self.assertAlmostEqual(want["boot"]["delta"], 0.20)
        self.assertIn(seeds_table.fmt_cmp(want, 100, 2), row)
        self.assertTrue(row.rstrip(" |").endswith(seeds_table.fmt_cmp(want, 100, 2)))
        csv = next(r for r in rows if r[1] == "sick" and r[2] == "snli_sick_cond_atr")
        self.assertEqual(csv[3:6], ["snli_sick_cond_mingru_atr_params", 2, 2])
        self.assertAlmostEqual(float(csv[6]), 20.0)

    def test_pairs_without_runs_say_so(self):
        lines, rows = hgates_table.build(hgates_table.load(self.root), self.root)
        self.assertEqual(len(rows), len(hgates_table.PAIRS) * len(hgates_table.TASKS))
        ptb = [l for l in lines if l.startswith("| PTB")]
        self.assertEqual(len(ptb), 2)
        for l in ptb:
            self.assertIn("no seeded runs committed yet", l)
        lrn_sick = next(l for l in lines if l.startswith("| SICK") and "`lrn_identity`" in l)
        self.assertIn("`minlstm_plain`: no seeded run", lrn_sick)
        # SST-2's LRN side is classify_sst2_lrn (already the identity output), elsewhere lrn_identity
        self.assertTrue(any(l.startswith("| SST-2") and "`lrn`: no seeded run" in l for l in lines))


if __name__ == "__main__":
    unittest.main()
