#!/usr/bin/env python3
"""plots/speed_ab.py on hand-made speed reports: the table's values, means and ratios by hand, a configuration
on one side only, and a broken report named (exit 2). /usr/bin/python3 tests/plots/test_speed_ab.py"""
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "plots"))
import speed_ab  # noqa: E402


def report(path, rows, rss=None):
    with open(path, "w", encoding="utf-8") as f:
        recs = [{"shape": s, "cell": c, "threads": t, "train_words_s": tr, "infer_words_s": inf}
                for s, c, t, tr, inf in rows]
        for r, mb in zip(recs, rss or []):
            r["peak_rss_mb"] = mb
        json.dump({"records": recs}, f)
    return path


class SpeedAb(unittest.TestCase):
    def test_table_by_hand(self):
        with tempfile.TemporaryDirectory() as d:
            b1 = report(os.path.join(d, "b1.json"), [("small", "atr", 1, 100, 300), ("small", "gru", 1, 50, 90)])
            b2 = report(os.path.join(d, "b2.json"), [("small", "atr", 1, 300, 500)])
            a1 = report(os.path.join(d, "a1.json"), [("small", "atr", 1, 400, 800)])
            out = os.path.join(d, "ab.md")
            self.assertEqual(speed_ab.main(["--before", b1, b2, "--after", a1, "--out", out]), 0)
            with open(out, encoding="utf-8") as f:
                lines = f.read().splitlines()
        # atr: before mean 200, after 400 -> 2.00x; inference 400 -> 800: 2.00x. gru: after side missing.
        self.assertEqual(lines[2], "| small | atr | 1 | 100 / 300 | 400 | 2.00x | 300 / 500 | 800 | 2.00x |")
        self.assertEqual(lines[3], "| small | gru | 1 | 50 | – | – | 90 | – | – |")

    def test_rss_columns_by_hand(self):
        with tempfile.TemporaryDirectory() as d:
            b1 = report(os.path.join(d, "b1.json"), [("small", "atr", 1, 100, 300)], rss=[100])
            b2 = report(os.path.join(d, "b2.json"), [("small", "atr", 1, 300, 500)], rss=[140])
            a1 = report(os.path.join(d, "a1.json"), [("small", "atr", 1, 400, 800)], rss=[132])
            no_rss = report(os.path.join(d, "n.json"), [("small", "atr", 1, 400, 800)])
            out = os.path.join(d, "ab.md")
            self.assertEqual(speed_ab.main(["--before", b1, b2, "--after", a1, "--rss", "--out", out]), 0)
            with open(out, encoding="utf-8") as f:
                lines = f.read().splitlines()
            # RSS: before mean 120, after 132 -> 1.10x.
            self.assertEqual(lines[2], "| small | atr | 1 | 100 / 300 | 400 | 2.00x | 300 / 500 | 800 | 2.00x | "
                                       "100 / 140 | 132 | 1.10x |")
            self.assertEqual(lines[0].count("|"), lines[1].count("|"))
            err = io.StringIO()
            with contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as e:
                speed_ab.main(["--before", b1, "--after", no_rss, "--rss"])
            self.assertEqual(e.exception.code, 2)
            self.assertIn("--after report " + no_rss, err.getvalue())

    def test_broken_report_is_named(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "bad.json")
            with open(bad, "w", encoding="utf-8") as f:
                f.write("{\"records\": [{\"shape\": \"small\"}]}")
            good = report(os.path.join(d, "g.json"), [])
            err = io.StringIO()
            with contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as e:
                speed_ab.main(["--before", bad, "--after", good])
            self.assertEqual(e.exception.code, 2)
            self.assertIn("--before report " + bad + ": cannot read it as a speed report", err.getvalue())


if __name__ == "__main__":
    unittest.main()
