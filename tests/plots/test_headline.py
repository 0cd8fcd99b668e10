#!/usr/bin/env python3
"""What a reader of results/ must find consistent (issue 51, point 9), on hand-made copies of the fixture runs of
tests/plots/fixtures/tables/:

- cells.md and the README's block show a task's number only as the mean over at least 3 seeded runs
  (`<experiment>_s<seed>`) that keep their outputs and did not diverge; an unseeded run, too few seeds, a run
  without kept outputs or a diverged run is left out of the table and of the bold, and listed with the reason;
- the README's list of every table names classify.md, ner.md and seeds.md;
- cws.md lists once an earlier unseeded run that its seeded rerun reproduced exactly, says nothing of a "band of
  issue 6", prints the ATR test itself (the one test of that pair) and says why a corpus of unseeded runs has none;
- nmt.md quotes the speed task's order (GRU decodes faster than ATR at beam 1 in results/speed/nmt.csv) and names
  the systems left out of the headline tables; with a report that decodes again at max length it quotes those
  rows/s too, and claims.md's decoding claim is judged on them (on tokens/s for an older report);
- ner.md never averages an unseeded run into a cell's mean.

Standard library and numpy: run from the repository root, e.g. by ctest, or
    /usr/bin/python3 tests/plots/test_headline.py
"""
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_tables import RUNS, csv_rows, edit_json, make_tables_in, md_rows, read, run  # noqa: E402


def copy_run(runs, src, name, summary=None, config=None, kept=None):
    """A copy of fixture run `src` as runs/<name>, with summary.json / config.resolved.json edited and an outputs
    folder `kept` (e.g. "logprobs") made."""
    d = os.path.join(runs, name)
    shutil.copytree(os.path.join(RUNS, src), d)
    if summary:
        edit_json(os.path.join(d, "summary.json"), summary)
    if config:
        edit_json(os.path.join(d, "config.resolved.json"), config)
    if kept:
        os.makedirs(os.path.join(d, kept))
        with open(os.path.join(d, kept, "test.txt"), "w", encoding="utf-8") as f:
            f.write("kept\n")
    return d


def lm_ppl(p):
    return lambda j: j["test"].update(ppl=p)


def nmt(cell, bleu):
    return (lambda j: j["translations"]["test2016"].update(bleu=bleu),
            lambda j: j["model"]["cell"].update(type=cell))


def cws_f1(f1):
    return lambda j: j["test"].update(f1=f1)


class Headline(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="test_headline_")
        runs = cls.runs = os.path.join(cls.tmp, "runs")
        os.makedirs(runs)
        # PTB: LSTM over 3 seeds (120, 121, 122) with an earlier unseeded run of 100 that must not count;
        # ATR's 3 seeds all diverged (the fixture's dev curve 300, 900, 150); ATR-tanh has 2 seeds only.
        for seed, p in ((1, 120.0), (2, 121.0), (3, 122.0)):
            copy_run(runs, "lm_lstm_small", f"lm_lstm_small_s{seed}", lm_ppl(p), kept="logprobs")
            copy_run(runs, "lm_atr_small", f"lm_atr_small_s{seed}", lm_ppl(p - 10), kept="logprobs")
        copy_run(runs, "lm_lstm_small", "lm_lstm_small", lm_ppl(100.0))
        for seed in (1, 2):
            copy_run(runs, "lm_atr_tanh_small", f"lm_atr_tanh_small_s{seed}", lm_ppl(110.0), kept="logprobs")
        # NMT: ATR and LSTM over 3 seeds with kept translations; GRU one unseeded run with the best BLEU.
        for seed, b in ((1, 36.0), (2, 36.5), (3, 37.0)):
            copy_run(runs, "nmt_atr", f"nmt_atr_s{seed}", *nmt("atr", b), kept="translations")
            copy_run(runs, "nmt_atr", f"nmt_lstm_s{seed}", *nmt("lstm", b - 2), kept="translations")
        copy_run(runs, "nmt_atr", "nmt_gru", *nmt("gru", 40.0))
        # CWS MSR: ATR over 3 seeds, one without kept outputs; GRU over 3 seeds.
        for seed, f in ((1, 0.85), (2, 0.86), (3, 0.87)):
            copy_run(runs, "cws_msr_atr", f"cws_msr_atr_s{seed}", cws_f1(f), kept="segmented" if seed < 3 else None)
            copy_run(runs, "cws_msr_gru", f"cws_msr_gru_s{seed}", cws_f1(f - 0.02), kept="segmented")
        cls.out, cls.readme, cls.rc, cls.stdout, cls.stderr = make_tables_in(cls.tmp, runs)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_written(self):
        self.assertEqual(self.rc, 0, self.stderr)
        self.assertNotIn("Traceback", self.stderr)

    def test_only_headline_groups_have_a_number(self):
        rows = {r[0]: r[1:] for r in md_rows(os.path.join(self.out, "cells.md"), "cell")}
        # columns: PTB ppl, NMT BLEU, CWS F1, SNLI acc, SICK acc, params, train words/s
        self.assertEqual(rows["lstm"][:3], ["121.0", "34.50", "–"])     # not 115.75 with the unseeded 100.0
        self.assertEqual(rows["atr"][:3], ["–", "**36.50**", "–"])     # diverged PTB; CWS s3 keeps no outputs
        self.assertEqual(rows["gru"][:3], ["–", "–", "84.00"])   # its 40.0 BLEU is one unseeded run (CWS alone: no bold)
        self.assertEqual(rows["atr_tanh"][:1], ["–"])                 # 2 seeds
        self.assertNotIn("40.00", "".join(sum(rows.values(), [])))

    def test_left_out_with_the_reason(self):
        text = read(os.path.join(self.out, "cells.md"))
        left = text.split("Left out of the table above", 1)[1].split("\n\n", 2)[1]
        lines = {l.split("`")[1]: l for l in left.splitlines()}
        self.assertIn("PTB: `lm_atr_small_s1`: diverged; `lm_atr_small_s2`: diverged; `lm_atr_small_s3`: diverged",
                      lines["atr"])
        self.assertIn("CWS: 2 usable seeds (`cws_msr_atr_s1`, `cws_msr_atr_s2`), fewer than 3; `cws_msr_atr_s3`: "
                      "outputs not kept", lines["atr"])
        self.assertIn("PTB: 2 usable seeds (`lm_atr_tanh_small_s1`, `lm_atr_tanh_small_s2`), fewer than 3",
                      lines["atr_tanh"])
        self.assertIn("NMT: `nmt_gru`: no seed, outputs not kept", lines["gru"])
        self.assertNotIn("lstm", lines)   # its unseeded run is simply not counted: its group stands
        self.assertIn("NMT [`nmt_atr_s1`](", text)
        self.assertIn(", mean of 3 seeds", text)

    def test_readme_block_is_the_same_and_lists_every_table(self):
        block = read(self.readme).split("<!-- cells table begin", 1)[1].split("<!-- cells table end -->")[0]
        self.assertIn("| atr | – | **36.50** | – |", block)
        self.assertIn("Left out of the table above", block)
        every = next(l for l in block.splitlines() if l.startswith("Every table"))
        for name in ("classify.md", "ner.md", "seeds.md", "lm.md", "nmt.md", "cws.md", "snli.md", "speed.md",
                     "table1.md", "cells.md"):
            self.assertIn(f"[{name}](results/{name})", every, name)

    def test_csv_follows_the_markdown(self):
        rows = {r[0]: r for r in csv_rows(os.path.join(self.out, "cells.csv"))}
        header = rows["cell"]
        atr = dict(zip(header, rows["atr"]))
        self.assertEqual((atr["ptb_small_test_ppl"], atr["nmt_multi30k_test2016_bleu"]), ("", "36.50"))
        self.assertEqual(atr["ptb_source"], "")
        self.assertEqual(atr["params_source"], os.path.join(self.runs, "lm_atr_small_s1"))   # a seeded run

    def test_lm_table_pools_no_diverged_or_unseeded_run(self):
        text = read(os.path.join(self.out, "lm.md"))
        self.assertIn("| `lm_atr_small_s1` (diverged, not pooled) | 1 | 110.0 (one seed) |", text)
        self.assertIn("| `lm_lstm_small` | 3 | 121.0 ± 1.0 (3) |", text)
        self.assertIn("| `lm_lstm_small` (earlier run, no seed suffix) | 1 | 100.0 (one run) |", text)
        self.assertIn("our LSTM on this recipe has test perplexity 121.0 (mean of 3 seeds)", text)


class CwsTable(unittest.TestCase):
    def table(self, names):
        """cws.md of copies of the fixture MSR runs: names {run: (src, f1 or None, kept outputs)}."""
        tmp = tempfile.mkdtemp(prefix="test_headline_cws_")
        self.addCleanup(shutil.rmtree, tmp, True)
        runs = os.path.join(tmp, "runs")
        def summary(f1):
            return lambda j: (j.update(steps=975), cws_f1(f1)(j) if f1 is not None else None)
        for name, (src, f1, kept) in names.items():   # the seed each ran with, as the binaries resolve it
            copy_run(runs, src, name, summary(f1), lambda j: j.update(seed=1234), kept)
        out = os.path.join(tmp, "cws.md")
        rc, _, err = run("cws_table.py", "--runs", runs, "--out", out)
        self.assertEqual(rc, 0, err)
        return read(out)

    def test_a_reproduced_run_is_listed_once(self):
        # cws_msr_atr ran with the default seed 1234; its rerun cws_msr_atr_s1234 gave the same numbers
        text = self.table({"cws_msr_atr": ("cws_msr_atr", None, None),
                           "cws_msr_atr_s1234": ("cws_msr_atr", None, "segmented"),
                           "cws_msr_gru": ("cws_msr_gru", None, None)})
        rows = md_rows_of(text, "cell")
        self.assertEqual([r[0] for r in rows], ["atr", "gru"])   # not atr twice
        self.assertIn("Listed once: `cws_msr_atr` (earlier runs without a seed suffix, which ran the default seed) "
                      "gave the same test numbers after the same steps as their reruns `cws_msr_atr_s1234`", text)
        self.assertNotIn("| `cws_msr_atr` (earlier run, no seed suffix)", text)
        self.assertIn("- `cws_msr_atr`: `", text)   # its command stays
        # a rerun that differs is no twin: both are listed
        text = self.table({"cws_msr_atr": ("cws_msr_atr", None, None),
                           "cws_msr_atr_s1234": ("cws_msr_atr", 0.80, "segmented")})
        self.assertEqual(len(md_rows_of(text, "cell")), 2)
        self.assertNotIn("Listed once", text)

    def test_atr_line_states_the_test_and_no_issue(self):
        names = {}
        for seed, f in ((1, 0.85), (2, 0.86), (3, 0.87)):
            names[f"cws_msr_atr_s{seed}"] = ("cws_msr_atr", f, "segmented")
            names[f"cws_msr_gru_s{seed}"] = ("cws_msr_gru", f - 0.02, "segmented")
        names["cws_msr_gru"] = ("cws_msr_gru", 0.95, None)   # unseeded: not in the mean
        text = self.table(names)
        line = next(l for l in text.splitlines() if l.startswith("ATR"))
        self.assertTrue(line.startswith("ATR − GRU test F1 (GRU the better of GRU and LSTM by mean; over 3 and 3 "
                                        "seeds): "), line)
        self.assertNotIn("issue", line)
        self.assertNotIn("band", line)
        self.assertNotIn("seeds.md", line)
        # no stats/test.tsv in these copies: the difference of the means, and no test
        self.assertIn("+2.00 points (difference of the means; no paired test", line)

    def test_a_corpus_of_unseeded_runs_says_so(self):
        text = self.table({"cws_msr_atr": ("cws_msr_atr", None, None), "cws_msr_gru": ("cws_msr_gru", None, None)})
        self.assertIn("Every run here is one run without a seed suffix", text)
        self.assertIn("ATR against GRU and LSTM: no seeded runs of the pair, so no mean over seeds and no paired "
                      "test", text)
        # the MSR section (issue 52's PKU (d) section, listed before its runs exist, points at seeds.md)
        msr = text.split("\n## PKU (d)")[0]
        self.assertNotIn("Per experiment over its seeds", msr)
        self.assertNotIn("seeds.md", msr)


def md_rows_of(text, first_header):
    with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False, encoding="utf-8") as f:
        f.write(text)
    try:
        return md_rows(f.name, first_header)
    finally:
        os.unlink(f.name)


class NmtTable(unittest.TestCase):
    def nmt_md(self, tmp, speed_csv):
        """nmt.md from the fixture run nmt_atr and a speed report with the CSV text `speed_csv`; (runs, out)."""
        runs, speed = os.path.join(tmp, "runs"), os.path.join(tmp, "speed")
        copy_run(runs, "nmt_atr", "nmt_atr")
        os.makedirs(speed)
        with open(os.path.join(speed, "nmt.csv"), "w", encoding="utf-8") as f:
            f.write(speed_csv)
        out = os.path.join(tmp, "nmt.md")
        rc, _, err = run("nmt_table.py", "--runs", runs, "--speed", speed, "--extra", tmp, "--out", out)
        self.assertEqual(rc, 0, err)
        return runs, out

    def test_speed_order_from_the_speed_task_and_left_out_systems(self):
        with tempfile.TemporaryDirectory() as tmp:
            runs, out = self.nmt_md(tmp, "cell,decode_tokens_s_beam1,decode_tokens_s_beam10,train_tokens_s\n"
                                         "atr,1909.2,559.3,3413.6\ngru,2292.9,586.8,2380.1\nlstm,1230.0,498.2,1918.3\n")
            text = read(out)
            self.assertNotIn("ATR > GRU > LSTM", text)
            self.assertIn("tokens/s: training ATR 3,414 > GRU 2,380 > LSTM 1,918; decoding at beam 1 GRU 2,293 > "
                          "ATR 1,909 > LSTM 1,230; at beam 10 GRU 587 > ATR 559 > LSTM 498.", text)
            self.assertIn("Left out of the headline tables", text)
            self.assertIn("atr (`nmt_atr`: no seed, outputs not kept)", text)
            # without the speed file: no order claimed
            rc, _, err = run("nmt_table.py", "--runs", runs, "--speed", os.path.join(tmp, "none"), "--extra", tmp,
                             "--out", out)
            self.assertEqual(rc, 0, err)
            self.assertIn("has the controlled speed comparison at equal dimensions.", read(out))

    def test_rows_at_max_length_quoted_when_the_report_has_them(self):
        with tempfile.TemporaryDirectory() as tmp:
            _, out = self.nmt_md(tmp, "cell,decode_rows_s_fixed_beam1,decode_rows_s_fixed_beam10,decode_tokens_s_beam1,"
                                      "decode_tokens_s_beam10,train_tokens_s\n"
                                      "atr,12555.1,4375.2,1431.0,104.0,4306.0\ngru,9200.4,3729.0,1323.0,132.0,3101.0\n")
            self.assertIn("with every hypothesis run to its max length (the same work for every cell), hypothesis "
                          "rows/s: beam 1 ATR 12,555 > GRU 9,200; beam 10 ATR 4,375 > GRU 3,729.", read(out))


class ClaimsSpeed(unittest.TestCase):
    """claims_table.speed_rows: the decoding claim on rows/s at max length where the report has them."""

    def test_decoding_on_rows_at_max_length(self):
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                        "plots"))
        import claims_table
        claim = next(c for c in claims_table.CLAIMS if c[0] == "atr_decode_speed")
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "nmt.csv"), "w", encoding="utf-8") as f:
                f.write("cell,decode_rows_s_fixed_beam1,decode_rows_s_fixed_beam10,decode_tokens_s_beam1,"
                        "decode_tokens_s_beam10,train_tokens_s\n"
                        "atr,12000,4400,1400,104,4300\ngru,9000,4000,1500,132,3100\nlstm,5000,4600,700,130,2000\n")
            rows = {r[2]: r for r in claims_table.speed_rows(claim, tmp)}
            self.assertEqual(rows["gru"][4], "supported")           # 1.33x and 1.10x
            self.assertEqual(rows["gru"][5], "decode_beam1 at max length 1.33x, decode_beam10 at max length 1.10x")
            self.assertEqual(rows["lstm"][4], "no significant difference")   # 2.40x and 0.96x
            with open(os.path.join(tmp, "nmt.csv"), "w", encoding="utf-8") as f:   # an older report: tokens/s
                f.write("cell,decode_tokens_s_beam1,decode_tokens_s_beam10,train_tokens_s\n"
                        "atr,1909.2,559.3,3413.6\ngru,2292.9,586.8,2380.1\n")
            rows = claims_table.speed_rows(claim, tmp)
            self.assertEqual(rows[0][4], "contradicted")
            self.assertEqual(rows[0][5], "decode_beam1 0.83x, decode_beam10 0.95x")


class NerTable(unittest.TestCase):
    def test_an_unseeded_run_is_not_in_a_mean(self):
        with tempfile.TemporaryDirectory() as tmp:
            runs = os.path.join(tmp, "runs")
            for name in ("ner_wnut17_atr_s1", "ner_wnut17_atr_s2", "ner_wnut17_lstm_s1"):
                copy_run(runs, name, name)
            copy_run(runs, "ner_wnut17_atr_s1", "ner_wnut17_atr", lambda j: j["test"].update(f1=0.90))
            out = os.path.join(tmp, "ner.md")
            rc, _, err = run("ner_table.py", "--runs", runs, "--out", out)
            self.assertEqual(rc, 0, err)
            text = read(out)
            self.assertIn("| atr | 2 | 21.00 ± 1.41 | 20.00–22.00 |", text)   # not 3 runs with the 90.00
            self.assertIn("Not in these means (each is in the per-run table below): `ner_wnut17_atr` (no seed "
                          "suffix).", text)


if __name__ == "__main__":
    unittest.main(verbosity=2)
