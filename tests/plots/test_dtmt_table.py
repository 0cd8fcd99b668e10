#!/usr/bin/env python3
"""plots/dtmt_table.py (results/dtmt.md, issue 57) and the two claims of plots/claims_table.py that read runs through
row functions of their own (dtmt_deep, lrn_rc), on the run folders of tests/plots/fixtures/dtmt/ (its
make_fixtures.py: the committed Multi30k runs' layout, every test sentence of a run with the same BLEU statistics,
so a run's BLEU is exact on any resample and the bootstrap's interval runs between two seeds' differences) and of
tests/plots/fixtures/rc/: the rows read from the configs, means and sds, single-seed rows, the runs left out, the
missing runs of issue 57's queues, the claim supported / contradicted / not significant / not tested by claims.md's
rule with the same numbers on both pages, and nmt_table / cells_table keeping DTMT out of the shallow cells.

    /usr/bin/python3 tests/plots/test_dtmt_table.py     (from anywhere; numpy, as plots/significance.py)
"""
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNS = os.path.join(ROOT, "tests", "plots", "fixtures", "dtmt", "runs")
RC_FIX = os.path.join(ROOT, "tests", "plots", "fixtures", "rc")
PLOTS = os.path.join(ROOT, "plots")
sys.path.insert(0, PLOTS)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture_util import copy_runs, edit_json  # noqa: E402
import cells_table  # noqa: E402
import claims_table  # noqa: E402
import nmt_table  # noqa: E402

DTMT_CLAIM = next(c for c in claims_table.CLAIMS if c[0] == "dtmt_deep")
RC_CLAIM = next(c for c in claims_table.CLAIMS if c[0] == "lrn_rc")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def run(script, *args):
    p = subprocess.run([sys.executable, os.path.join(PLOTS, script), *args], capture_output=True, text=True,
                       timeout=120)
    return p.returncode, p.stdout, p.stderr


def table(runs, out):
    """dtmt_table.py over runs into out: (exit status, stderr, dtmt.md text)."""
    rc, _, err = run("dtmt_table.py", "--runs", runs, "--out", out)
    return rc, err, read(out) if os.path.exists(out) else ""


def claims(runs, out):
    """claims_table.py over runs (no sweeps, no speed files) into out: its dtmt_deep row."""
    rc, _, err = run("claims_table.py", "--runs", runs, "--sweeps", os.path.join(runs, "none"), "--speed",
                     os.path.join(runs, "none"), "--out", out)
    if rc != 0:
        raise AssertionError(err)
    return line(read(out), f"| {DTMT_CLAIM[2]} |")


def line(text, start):
    """The one line of text that starts with `start`."""
    found = [l for l in text.splitlines() if l.startswith(start)]
    if len(found) != 1:
        raise AssertionError(f"{len(found)} lines start with {start!r}:\n{text}")
    return found[0]



def set_bleu(d, bleu):
    """Gives run folder d the BLEU `bleu` everywhere the fixture keeps it (stats rows and summary.json)."""
    row = "\t".join(str(x) for x in [100, 100] + [bleu, 100] * 4)
    stats = os.path.join(d, "stats", "test.tsv")
    lines = read(stats).splitlines()
    with open(stats, "w", encoding="utf-8") as f:
        f.write(lines[0] + "\n" + (row + "\n") * (len(lines) - 1))

    def summary(s):
        s["test"]["bleu"] = float(bleu)
        s["translations"]["test2016"].update(bleu=float(bleu), sacrebleu=bleu - 0.5)
    edit_json(os.path.join(d, "summary.json"), summary)


class DtmtTable(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="test_dtmt_table_")
        cls.out = os.path.join(cls.tmp, "dtmt.md")
        cls.rc, cls.stderr, cls.text = table(RUNS, cls.out)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_rows_from_the_configs(self):
        self.assertEqual(self.rc, 0, self.stderr)
        # GRU: BLEU 30, 32, 34 -> 32.00 ± 2.00; sacreBLEU 0.5 below; tokens/s the medians 1100, 1000, 1200 -> 1,100.
        self.assertEqual(line(self.text, "| RNNSearch (shallow) | GRU |"),
                         "| RNNSearch (shallow) | GRU | – | – | – | 3 | 32.00 ± 2.00 | 31.50 ± 2.00 | 11,779,648 | 1,100 | "
                         "(the reference) | `nmt_gru_s1`, `nmt_gru_s2`, `nmt_gru_s1234` |")
        # DTMT 4/4/4 (the claim's row, bold): 40, 41, 42 -> 41.00 ± 1.00; tokens/s 400, 450, 500 -> 450; against GRU
        # +9.00, the seed differences from 40 - 34 = 6 to 42 - 30 = 12, better in every resample: p 2 / 1001.
        self.assertEqual(line(self.text, "| **DTMT** |"),
                         "| **DTMT** | L-GRU | 4 / 4 / 4 | 16 | on | 3 | 41.00 ± 1.00 | 40.50 ± 1.00 | 25,000,000 | 450 | "
                         "+9.00 [+6.00, +12.00] p 0.002 †, Welch p 0.006 | `nmt_dtmt_s1`, `nmt_dtmt_s2`, "
                         "`nmt_dtmt_s1234` |")
        # ATR: 31, 33, 35 -> 33.00 ± 2.00, +1.00 against GRU, the seed differences from -3 to +5: not called.
        atr = line(self.text, "| RNNSearch (shallow) | ATR |")
        self.assertTrue(atr.startswith("| RNNSearch (shallow) | ATR | – | – | – | 3 | 33.00 ± 2.00 | 32.50 ± 2.00 | "
                                       "7,843,392 | 1,433 | +1.00 [-3.00, +5.00] p 0."), atr)
        self.assertNotIn("†", atr)

    def test_single_seed_rows_labelled_and_untested(self):
        self.assertEqual(line(self.text, "| DTMT | L-GRU | 1 / 1 / 1 |"),
                         "| DTMT | L-GRU | 1 / 1 / 1 | 16 | on | 1 (single seed) | 38.00 (single seed) | 37.50 (single "
                         "seed) | 15,000,000 | 900 | single seed: no test | `nmt_dtmt_depth1_s1234` |")
        self.assertIn("| DTMT | L-GRU | 2 / 2 / 2 | 16 | on | 1 (single seed) | 39.00 (single seed) |", self.text)
        self.assertEqual(line(self.text, "| DTMT | GRU (L-GRU without H(x)) |"),
                         "| DTMT | GRU (L-GRU without H(x)) | 4 / 4 / 4 | 16 | off | 1 (single seed) | 37.00 (single "
                         "seed) | 36.50 (single seed) | 24,000,000 | 440 | single seed: no test | "
                         "`nmt_dtmt_no_linear_s1234` |")
        # The order: baselines, then the depth study (1, 2, 4), then without H(x).
        models = [l.split(" | ")[2] + " " + l.split(" | ")[4] for l in self.text.splitlines()
                  if l.startswith(("| RNNSearch", "| DTMT", "| **DTMT"))]
        self.assertEqual(models, ["– –", "– –", "1 / 1 / 1 on", "2 / 2 / 2 on", "4 / 4 / 4 on", "4 / 4 / 4 off"])
        self.assertIn("everything else fixed", self.text)

    def test_csv(self):
        with open(os.path.join(self.tmp, "dtmt.csv"), newline="", encoding="utf-8") as f:
            rows = {r["experiment"]: r for r in csv.DictReader(f)}
        self.assertEqual(list(rows), ["nmt_gru", "nmt_atr", "nmt_dtmt_depth1", "nmt_dtmt_depth2", "nmt_dtmt",
                                      "nmt_dtmt_no_linear"])
        d = rows["nmt_dtmt"]
        self.assertEqual((d["transitions"], d["heads"], d["linear_transform"], d["seeds"]), ("4 / 4 / 4", "16", "on", "3"))
        self.assertEqual((d["test2016_bleu_mean"], d["test2016_bleu_sd"], d["params"], d["train_tok_s"]),
                         ("41.0000", "1.0000", "25000000", "450"))
        self.assertEqual((d["d_gru"], d["d_gru_lo95"], d["d_gru_hi95"], d["p_gru_bootstrap"]), ("9", "6", "12", "0.001998"))
        self.assertEqual((rows["nmt_gru"]["transitions"], rows["nmt_gru"]["d_gru"]), ("", ""))
        self.assertEqual(rows["nmt_dtmt_depth1"]["test2016_bleu_sd"], "")

    def test_left_out_and_broken_runs(self):
        self.assertNotIn("Traceback", self.stderr)
        broken = os.path.join(RUNS, "nmt_dtmt_broken_s1")
        self.assertIn(f"dtmt_table.py: skipped {broken}: config.resolved.json: model.kind is \"dtmt\" but the key "
                      "'model.dtmt.heads' is missing", self.stderr)
        self.assertNotIn("nmt_dtmt_broken_s1", self.text)
        self.assertIn("Not in these means (in nmt.md, with the reason): `nmt_atr` (no seed, outputs not kept).",
                      self.text)

    def test_missing_runs_named(self):
        self.assertIn("and not in the run folders: `nmt_dtmt_atr_s1234`.", self.text)
        with tempfile.TemporaryDirectory() as tmp:
            runs = copy_runs(RUNS, tmp)
            d = os.path.join(runs, "nmt_dtmt_atr_s1234")
            shutil.copytree(os.path.join(runs, "nmt_dtmt_depth1_s1234"), d)
            edit_json(os.path.join(d, "config.resolved.json"), lambda c: (
                c["model"]["cell"].update(type="atr"), c["model"]["dtmt"].update(
                    encoder_transitions=4, query_transitions=4, decoder_transitions=4)))
            rc, err, text = table(runs, os.path.join(tmp, "dtmt.md"))
            self.assertEqual(rc, 0, err)
            self.assertIn("| DTMT | ATR | 4 / 4 / 4 | 16 | – (not an L-GRU) | 1 (single seed) | 38.00 (single seed) |",
                          text)
            self.assertNotIn("Runs not committed yet", text)
            self.assertIn("Every run the issue's queues (`experiments/queues/issue57_a.txt`, "
                          "`experiments/queues/issue57_b.txt`) name is committed.", text)
            # The last row: ATR at the first step after every L-GRU row.
            self.assertTrue(line(text, "| DTMT | GRU (L-GRU without H(x)) |") in text.split("| DTMT | ATR |")[0])

    def test_config_differences_named(self):
        with tempfile.TemporaryDirectory() as tmp:
            runs = copy_runs(RUNS, tmp)
            edit_json(os.path.join(runs, "nmt_dtmt_depth2_s1234", "config.resolved.json"),
                      lambda c: c["model"].update(embed=128))
            rc, err, text = table(runs, os.path.join(tmp, "dtmt.md"))
            self.assertEqual(rc, 0, err)
            self.assertIn("only in `model.dtmt.*` and `model.cell.type`, except:\n\n- `nmt_dtmt_depth2` differs from "
                          "`nmt_dtmt` in `model.embed` (128 vs 256).", text)


class DtmtClaim(unittest.TestCase):
    """The verdict of "deep transition beats shallow" on dtmt.md and claims.md: one call, one rule, one row."""

    def verdict(self, bleus, drop=()):
        """dtmt.md's claim row and claims.md's dtmt_deep row with the DTMT seeds' BLEU set to `bleus`."""
        with tempfile.TemporaryDirectory() as tmp:
            runs = copy_runs(RUNS, tmp)
            for seed, bleu in zip((1234, 1, 2), bleus):
                set_bleu(os.path.join(runs, f"nmt_dtmt_s{seed}"), bleu)
            for name in drop:
                shutil.rmtree(os.path.join(runs, name))
            rc, err, text = table(runs, os.path.join(tmp, "dtmt.md"))
            self.assertEqual(rc, 0, err)
            return line(text, "| dtmt | gru |"), claims(runs, os.path.join(tmp, "claims.md")), text

    def test_supported(self):
        page, row, _ = self.verdict((40, 41, 42))
        self.assertEqual(page, "| dtmt | gru | 3 / 3 | +9.00 [+6.00, +12.00], p 0.002 | **supported** |")
        self.assertTrue(row.endswith("| nmt_dtmt (fixed recipe) | dtmt | gru | 3 / 3 | +9.00 [+6.00, +12.00], p 0.002 | "
                                     "**supported** |"), row)

    def test_contradicted(self):
        # 20, 21, 22 against 30, 32, 34: -11.00, from 20 - 34 = -14 to 22 - 30 = -8, worse in every resample.
        page, row, _ = self.verdict((20, 21, 22))
        self.assertEqual(page, "| dtmt | gru | 3 / 3 | -11.00 [-14.00, -8.00], p 0.002 | **contradicted** |")
        self.assertTrue(row.endswith("| 3 / 3 | -11.00 [-14.00, -8.00], p 0.002 | **contradicted** |"), row)

    def test_not_significant(self):
        # 31, 33, 35 against 30, 32, 34: +1.00, from -3 to +5; 3 of the 9 seed pairs are worse, so about a third
        # of the resamples: p near 2 x 1/3, far above 0.05.
        page, row, _ = self.verdict((31, 33, 35))
        self.assertTrue(page.startswith("| dtmt | gru | 3 / 3 | +1.00 [-3.00, +5.00], p 0.") and
                        page.endswith("| **no significant difference** |"), page)
        p = float(page.split(", p ")[1].split(" |")[0])
        self.assertTrue(0.5 < p < 0.8, p)
        self.assertTrue(row.endswith(page[len("| dtmt | gru "):]), (row, page))   # the same test, the same numbers

    def test_not_tested_while_seeds_are_missing(self):
        page, row, text = self.verdict((40, 41, 42), drop=("nmt_dtmt_s2",))
        self.assertEqual(page, "| dtmt | gru | 2 / 3 | fewer than 3 seeds | **not tested here** |")
        self.assertTrue(row.endswith("| 2 / 3 | fewer than 3 seeds | **not tested here** |"), row)
        self.assertIn("Until the runs listed below are committed, the claim is not tested here.", text)
        self.assertIn("and not in the run folders: `nmt_dtmt_s2`, `nmt_dtmt_atr_s1234`.", text)
        # 40 (s1234) and 41 (s1): 40.50 ± 0.71, and no test from two seeds.
        self.assertIn("| **DTMT** | L-GRU | 4 / 4 / 4 | 16 | on | 2 | 40.50 ± 0.71 | 40.00 ± 0.71 | 25,000,000 | 425 | "
                      "2 seeds: no test (fewer than 3) |", text)
        page, row, text = self.verdict((40, 41, 42), drop=("nmt_dtmt_s2", "nmt_dtmt_s1", "nmt_dtmt_s1234"))
        self.assertEqual(page, "| dtmt | gru | – | no seeded runs of both cells | **not tested here** |")
        self.assertNotIn("| **DTMT** |", text)

    def test_diverged_seed_left_out(self):
        with tempfile.TemporaryDirectory() as tmp:
            runs = copy_runs(RUNS, tmp)
            d = os.path.join(runs, "nmt_dtmt_s7")
            shutil.copytree(os.path.join(runs, "nmt_dtmt_s2"), d)
            set_bleu(d, 0)
            edit_json(os.path.join(d, "summary.json"), lambda s: s.update(stop_reason="non_finite"))
            rc, err, text = table(runs, os.path.join(tmp, "dtmt.md"))
            self.assertEqual(rc, 0, err)
            self.assertIn("| **DTMT** | L-GRU | 4 / 4 / 4 | 16 | on | 3 | 41.00 ± 1.00 |", text)
            self.assertIn("`nmt_dtmt_s7` (diverged)", text)
            self.assertEqual(line(text, "| dtmt | gru |"),
                             "| dtmt | gru | 3 / 3 | +9.00 [+6.00, +12.00], p 0.002 | **supported** |")


class ShallowTablesKeepDtmtApart(unittest.TestCase):
    def test_nmt_table_names_dtmt_and_cells_table_does_not_pool_it(self):
        rows = nmt_table.load(RUNS)
        names = {r["run"]: (r["system"], r["plain"]) for r in rows}
        self.assertEqual(names["nmt_dtmt_s1"], ("dtmt_lgru_4-4-4", False))
        self.assertEqual(names["nmt_dtmt_depth1_s1234"], ("dtmt_lgru_1-1-1", False))
        self.assertEqual(names["nmt_dtmt_no_linear_s1234"], ("dtmt_lgru_4-4-4_no_linear", False))
        self.assertEqual(names["nmt_atr_s1"], ("atr", True))
        best, _ = cells_table.collect([], rows, [], [], None)
        self.assertEqual(sorted(best), ["atr", "gru"])   # no lgru cell, and ATR's mean is the shallow runs' alone
        self.assertAlmostEqual(best["atr"]["nmt"][0], 33.0)


class RcClaim(unittest.TestCase):
    """lrn_rc: LRN vs LSTM on SQuAD F1, the runs and the test of rc.md (tests/plots/fixtures/rc)."""

    def test_fewer_than_three_seeds(self):
        # The fixture: lrn one seed, lstm two.
        self.assertEqual(claims_table.rc_rows(RC_CLAIM, os.path.join(RC_FIX, "runs")),
                         [("rc", "lrn", "lstm", "1 / 2", "not tested here", "fewer than 3 seeds (issue 53's queues run "
                           "one seed per cell first; rc.md compares them)")])
        with tempfile.TemporaryDirectory() as tmp:
            self.assertEqual(claims_table.rc_rows(RC_CLAIM, tmp)[0][3:],
                             ("–", "not tested here", "no seeded runs of both cells"))

    def test_three_seeds_each(self):
        with tempfile.TemporaryDirectory() as tmp:
            runs = os.path.join(tmp, "runs")
            shutil.copytree(os.path.join(RC_FIX, "runs"), runs)
            for src, dst in (("rc_squad_lrn_s1", "rc_squad_lrn_s2"), ("rc_squad_lrn_s1", "rc_squad_lrn_s3"),
                             ("rc_squad_lstm_s2", "rc_squad_lstm_s3")):
                shutil.copytree(os.path.join(runs, src), os.path.join(runs, dst))
            # LRN answers every question (F1 100), LSTM's F1 57.5, 61.11, 61.11: +40.09. But about 4.4 % of the
            # resamples draw only questions both answer fully (LSTM s2's first and last: 2/3 x (1/2)^4; s1's first:
            # 1/3 x (1/4)^4), a difference of 0: p about 2 x 0.044, not significant, and the interval is far wider than
            # ±1: no significant difference (claims.md's parity rule), not "supported".
            (row,) = claims_table.rc_rows(RC_CLAIM, runs)
            self.assertEqual(row[:5], ("rc", "lrn", "lstm", "3 / 3", "no significant difference"))
            self.assertTrue(row[5].startswith("+40.09 [+0.00, "), row)
            self.assertTrue(0.05 < float(row[5].split(", p ")[1]) < 0.15, row)
            # The same test as rc.md prints for lrn − lstm.
            rc, _, err = run("rc_table.py", "--runs", runs, "--out", os.path.join(tmp, "rc.md"), "--root", RC_FIX)
            self.assertEqual(rc, 0, err)
            f1 = line(read(os.path.join(tmp, "rc.md")), "| lstm − lrn |").split(" | ")[2]
            lo, hi = (float(x) for x in f1.split("[")[1].split("]")[0].split(", "))
            p = f1.split(" p ")[1].split(" ")[0].rstrip(",")
            self.assertTrue(f1.startswith("-40.09 ["), f1)
            self.assertEqual(row[5], f"+40.09 [{-hi:+.2f}, {-lo:+.2f}], p {p}")
            # LSTM answering every question too: a difference of 0 in every resample, inside ±1: supported.
            for seed in (1, 2, 3):
                d = os.path.join(runs, f"rc_squad_lstm_s{seed}")
                shutil.copy(os.path.join(runs, "rc_squad_lrn_s1", "stats", "test.tsv"), os.path.join(d, "stats"))
                edit_json(os.path.join(d, "summary.json"), lambda s: s["test"].update(exact_match=100.0, f1=100.0))
            self.assertEqual(claims_table.rc_rows(RC_CLAIM, runs),
                             [("rc", "lrn", "lstm", "3 / 3", "supported", "+0.00 [+0.00, +0.00], p 1.000")])

    def test_margin_stated(self):
        self.assertEqual(claims_table.MARGIN["squad"], 1.0)
        with tempfile.TemporaryDirectory() as tmp:
            claims(RUNS, os.path.join(tmp, "claims.md"))   # no rc run in the DTMT fixture
            text = read(os.path.join(tmp, "claims.md"))
            self.assertIn("squad ±1 (points", text)
            self.assertIn("parity margin ±1 F1 point", text)
            self.assertIn("| LRN matches LSTM on reading comprehension (SQuAD EM / F1) | LRN, Table 5 | rc (fixed recipe) "
                          "| lrn | lstm | – | no seeded runs of both cells | **not tested here** |", text)


if __name__ == "__main__":
    unittest.main()
