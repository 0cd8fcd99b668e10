#!/usr/bin/env python3
"""plots/lm_table.py's pieces on hand-made rows: the state-norm jump and calm texts, the training perplexity of
the last epoch, the gap to the paper's LSTM split into the recipe's and each cell's share, and the README's
TF-recipe lines, written between their markers only (tests/plots/test_tables.py runs the whole table).

Standard library only: run from the repository root, e.g. by ctest, or
    /usr/bin/python3 tests/plots/test_lm_table.py
"""
import math
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_tables import PLOTS, README, RUNS, SPEED, csv_rows, edit_json, md_rows, read, run  # noqa: E402


class LmTablePieces(unittest.TestCase):
    def test_lm_state_jump_and_train_ppl(self):
        sys.path.insert(0, PLOTS)
        try:
            from lm_table import last_epoch_train_ppl, state_calm, state_jump
        finally:
            sys.path.pop(0)
        row = lambda step, loss, m, g=None: {"split": "train", "step": step, "loss": loss, "state_abs_max": m,
                                             **({"grad_norm": g} if g is not None else {})}
        # growth under tenfold between two rows: no jump; the largest tenfold-or-more growth is named
        self.assertIsNone(state_jump([row(1, 5.0, [1.0, 2.0]), row(2, 5.0, [1.0, 19.0])]))
        self.assertEqual(state_jump([row(1, 5.0, [1.0, 2.0]), row(2, 6.0, [30.0, 3.0], 40.0),
                                     row(3, 7.0, [30.0, 3.0]), row(4, 8.0, [1.0, 300.0], 500.0)]),   # 15x beats 10x
                         "step 2: max |h| 2 -> 30 (layer 1), gradient norm 40, training loss 5 -> 6 per token")
        self.assertIsNone(state_jump([{"split": "train", "step": 1, "loss": 5.0}]))
        # a calm run: its peak (value, layer, step) and largest growth between two rows; none for a jump
        self.assertEqual(state_calm([row(1, 5.0, [1.0, 2.0]), row(2, 5.0, [1.0, 19.0]), row(3, 5.0, [4.0, 9.5])]),
                         "max |h| peaked at 19 (layer 2, step 2) over 3 log rows and grew at most 9.5-fold between "
                         "two of them")
        self.assertIsNone(state_calm([row(1, 5.0, [1.0, 2.0]), row(2, 6.0, [30.0, 3.0])]))
        self.assertIsNone(state_calm([{"split": "train", "step": 1, "loss": 5.0}]))
        rows = [{"split": "train", "epoch": 1, "loss": 9.0}, {"split": "dev", "epoch": 2, "loss": 0.0},
                {"split": "train", "epoch": 2, "loss": 1.0}, {"split": "train", "epoch": 2, "loss": 3.0}]
        self.assertAlmostEqual(last_epoch_train_ppl(rows), math.exp(2.0))
        self.assertIsNone(last_epoch_train_ppl(rows[1:2]))

    def test_lm_noted_runs(self):
        from lm_table import noted
        row = lambda key, diverged=None, calm="did not diverge: ...": {"key": key, "diverged": diverged, "calm": calm}
        self.assertTrue(noted("small", row("lstm", diverged="dev perplexity 1e+05 after epoch 3")))
        self.assertTrue(noted("small", row("atr_tanh")))
        self.assertFalse(noted("small", row("lstm")))                 # a calm non-ATR run of a seeded recipe
        self.assertTrue(noted("atr_authors", row("gru")))              # every run of the one-seed TF recipe
        self.assertFalse(noted("atr_authors", row("gru", calm=None)))  # nothing to say without its log

    def test_lm_gap_split(self):
        sys.path.insert(0, PLOTS)
        try:
            from lm_table import gap_split
        finally:
            sys.path.pop(0)
        counter = iter(range(1, 100))
        run = lambda cell, test, name=None, diverged=None: {
            "cell": cell, "test": test, "diverged": diverged,
            "run": name or f"lm_{cell.lower()}_atr_authors_s{next(counter)}"}
        # no paper number for the recipe, or no LSTM run on it: nothing to split
        self.assertIsNone(gap_split("other", [run("LSTM", 90.0), run("ATR", 95.0)]))
        self.assertIsNone(gap_split("atr_authors", [run("ATR", 89.0)]))
        # LSTM 84.0 and 86.0 (mean 85.0) against Zaremba's 82.7: +2.3; ATR 89.0 - 85.0 = +4.0; GRU 84.0, 88.0
        # (mean 86.0): +1.0, from -1.0 to +3.0; cells by their mean, lowest first
        text = gap_split("atr_authors", [run("LSTM", 84.0), run("ATR", 89.0), run("LSTM", 86.0),
                                         run("GRU", 84.0), run("GRU", 88.0)])
        self.assertIn("test perplexity 85.0 (mean of 2 seeds) against the paper's 82.7, +2.3 from the recipe", text)
        self.assertIn("the cell's share: GRU +1.0 (mean of 2 seeds, -1.0 to +3.0), ATR +4.0 (one seed).", text)
        self.assertTrue(gap_split("atr_authors", [run("LSTM", 84.0)]).endswith("(the cell is the same)."))

    def test_lm_gap_split_never_averages_unseeded_or_diverged_runs(self):
        # lm.md said "LSTM 114.8 (mean of 4 runs)" with the unseeded lm_lstm_small among them, and "ATR +144.1
        # (mean of 2 runs)" with two diverged runs: only seeded runs that did not diverge count, the others are
        # named as left out, and a cell with none gets no share.
        sys.path.insert(0, PLOTS)
        try:
            from lm_table import gap_split
        finally:
            sys.path.pop(0)
        run = lambda cell, test, name, diverged=None: {"cell": cell, "test": test, "run": name, "diverged": diverged}
        rs = [run("LSTM", 113.6, "lm_lstm_small"), run("LSTM", 115.0, "lm_lstm_small_s1"),
              run("LSTM", 115.4, "lm_lstm_small_s2"), run("ATR", 391.3, "lm_atr_small", diverged="dev ppl 1e+62"),
              run("ATR", 126.5, "lm_atr_small_s1234", diverged="dev ppl 5e+05"), run("RAN", 118.9, "lm_ran_small"),
              run("LRN", 117.0, "lm_lrn_small_s1")]
        text = gap_split("small", rs)
        self.assertIn("test perplexity 115.2 (mean of 2 seeds) against the paper's 114.5, +0.7", text)
        self.assertIn("the cell's share: LRN +1.8 (one seed).", text)
        self.assertNotIn("ATR +", text)
        self.assertNotIn("RAN +", text)
        self.assertIn("left out: `lm_atr_small` (no seed, diverged), `lm_atr_small_s1234` (diverged), "
                      "`lm_lstm_small` (no seed), `lm_ran_small` (no seed); so no share for ATR, RAN.", text)
        # every LSTM run unseeded: no split, and why
        text = gap_split("small", [run("LSTM", 120.0, "lm_lstm_small"), run("ATR", 142.3, "lm_atr_small_s1")])
        self.assertTrue(text.startswith("The gap to the paper's LSTM (114.5) is not split: no seeded LSTM run"), text)
        self.assertIn("`lm_lstm_small`: no seed", text)

    def test_lm_readme_block(self):
        sys.path.insert(0, PLOTS)
        try:
            from lm_table import readme_block
        finally:
            sys.path.pop(0)
        run = lambda cell, key, valid, test, **kw: {"cell": cell, "key": key, "recipe": "atr_authors", "valid": valid,
                                                  "test": test, "run": f"lm_{key}_atr_authors_s1", "epochs": 39,
                                                  "diverged": kw.get("diverged"), "state_peak": kw.get("peak")}
        self.assertEqual(readme_block([dict(run("LSTM", "lstm", 90.0, 85.0), recipe="small")]),
                         ["No run of the ATR authors' TensorFlow recipe is committed yet (`results/lm.md`)."])
        text = readme_block([run("ATR", "atr_bias_none", 93.2, 89.0, peak=14.64)])[0]
        self.assertIn("valid / test perplexity: ATR 93.2 / 89.0; Zaremba et al.'s medium LSTM", text)
        self.assertIn("ATR (`lm_atr_bias_none_atr_authors_s1`) trained 39 epochs without blowing up: its carried "
                      "state's max |h| never went above 14.6.", text)
        self.assertTrue(text.endswith("Not committed yet: LSTM, GRU."))
        self.assertNotIn("seeds.md", text)   # one cell: nothing to compare
        text = readme_block([run("ATR", "atr", 93.2, 89.0, diverged="dev perplexity 1e+09 after epoch 3."),
                             run("GRU", "gru", 88.0, 84.5), run("LSTM", "lstm", 86.0, 82.0)])[0]
        self.assertIn("perplexity: LSTM 86.0 / 82.0, GRU 88.0 / 84.5, ATR 93.2 / 89.0;", text)   # by test ppl
        self.assertIn("ATR (`lm_atr_atr_authors_s1`) diverged on the way: dev perplexity 1e+09 after epoch 3.", text)
        self.assertIn("`results/seeds.md`", text)
        self.assertNotIn("Not committed yet", text)

    def test_lm_readme_block_written_between_its_markers_only(self):
        with tempfile.TemporaryDirectory() as d:
            readme = os.path.join(d, "README.md")
            head = README + "\nText before.\n<!-- lm recipe begin (generated) -->\nold line\n"
            with open(readme, "w", encoding="utf-8") as f:
                f.write(head + "<!-- lm recipe end -->\nText after.\n")
            rc, _, err = run("cells_table.py", "--runs", RUNS, "--speed", SPEED, "--out", os.path.join(d, "cells.md"),
                             "--readme", readme)
            self.assertEqual(rc, 0, err)
            text = read(readme)
            self.assertNotIn("old line", text)
            self.assertIn("<!-- lm recipe begin (generated) -->\nNo run of the ATR authors' TensorFlow recipe is "
                          "committed yet (`results/lm.md`).\n<!-- lm recipe end -->\nText after.\n", text)
            self.assertTrue(text.startswith("# A project\n"))
            # an end marker lost: reported by path, the block left as it is
            with open(readme, "w", encoding="utf-8") as f:
                f.write(head)
            rc, _, err = run("cells_table.py", "--runs", RUNS, "--speed", SPEED, "--out", os.path.join(d, "cells.md"),
                             "--readme", readme)
            self.assertEqual(rc, 0, err)
            self.assertIn(f"{readme}: needs exactly one `<!-- lm recipe begin ... -->` line", err)
            self.assertIn("old line", read(readme))

    def test_lm_row_names_a_gate_pair_other_than_input_forget(self):
        # GRU has no input/forget gates: its gates.json correlates update z with reset r, and its row says so
        # in the table and in the CSV; an LSTM (pair i,f) or a gates.json naming no pair stays unmarked.
        with tempfile.TemporaryDirectory() as top:
            runs = os.path.join(top, "runs")
            for name in ("lm_lstm_small", "lm_atr_small"):
                shutil.copytree(os.path.join(RUNS, name), os.path.join(runs, name))
            gru = os.path.join(runs, "lm_gru_small")
            shutil.copytree(os.path.join(RUNS, "lm_lstm_small"), gru)
            edit_json(os.path.join(gru, "config.resolved.json"), lambda j: j["model"]["cell"].update(type="gru"))
            edit_json(os.path.join(gru, "summary.json"), lambda j: j.update(name="lm_gru_small"))
            edit_json(os.path.join(gru, "gates.json"), lambda j: j.update(cell="gru", pair=["z", "r"]))
            edit_json(os.path.join(runs, "lm_lstm_small", "gates.json"), lambda j: j.update(pair=["i", "f"]))
            out = os.path.join(top, "lm.md")
            rc, _, err = run("lm_table.py", "--runs", runs, "--out", out)
            self.assertEqual(rc, 0, err)
            rows = {r[-1]: r for r in md_rows(out, "cell")}
            self.assertEqual(rows["`lm_gru_small`"][0], "GRU")
            self.assertEqual(rows["`lm_gru_small`"][8], "-0.100 (z,r)")
            self.assertEqual(rows["`lm_lstm_small`"][8], "-0.100")
            self.assertEqual(rows["`lm_atr_small`"][8], "0.500")
            self.assertIn("a cell without\nthem names the pair it correlates instead (GRU: update z and reset r).",
                          read(out))
            csvd = {r[-2]: r for r in csv_rows(os.path.join(top, "lm.csv"))}
            self.assertEqual(csvd["run"][13:15], ["r_gates_positions", "gate_pair"])
            self.assertEqual(csvd["lm_gru_small"][13:15], ["-0.100", "z,r"])
            self.assertEqual(csvd["lm_lstm_small"][13:15], ["-0.100", "i,f"])
            self.assertEqual(csvd["lm_atr_small"][13:15], ["0.500", ""])


if __name__ == "__main__":
    unittest.main()
